/**
 * The option matrix: for one provider, every documented option of its bound
 * `withClassifiedErrors` (`deadlineMs`, `signal`, `retry`, `idempotent`, `inspectResult`,
 * `detectBlockedAnswer`) and of
 * its stream guard (`idleTimeoutMs`, `signal`) × every supported SDK major, played by the loopback
 * server and read through the real SDK, each cell checked against the contract (docs/contributing/design.md
 * "Who fired an abort decides what it is", packages/render/README.md "withClassifiedErrors").
 *
 * The scenarios come from the provider's own folder (packages/llm-mock/scenarios/<provider>/), picked by
 * what they are (a never-answering socket, a retryable HTTP failure with a Retry-After …), never by
 * name; what a cell expects comes from the taxonomy and the scenario's `expected`. No raw SDK error
 * may leave `withClassifiedErrors` in any cell but the caller's own abort: every cell says which
 * of the two it got. Import it from tests only (`@faultline/test-fixtures/option-matrix`): it
 * registers vitest suites.
 */

import { type FailureReason, TAXONOMY } from '@faultline/classify';
import {
  expectedFor,
  type LoopbackServer,
  type LoopbackServerOptions,
  loadScenarios,
  type Scenario,
  type ScenarioResponse,
  startLoopbackServer,
} from '@faultline/llm-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Drained,
  drain,
  type GuardCallOptions,
  installedMajors,
  type OpenCall,
} from './stream-matrix.ts';

/** The part of an ErrorReport the matrix reads (render's ErrorReport satisfies it). */
export interface OptionReport {
  readonly reason: string;
  readonly category: string;
  readonly retryable: boolean;
  readonly provider: string;
  readonly retryAfterSeconds?: number | undefined;
  /** When the wait ends (ISO 8601): the failure's time plus `retryAfterSeconds`. */
  readonly retryableAt?: string | undefined;
  /** The attempts withClassifiedErrors made, and the wait before each retry. */
  readonly attempts?: { readonly made: number; readonly waitsMs: readonly number[] } | undefined;
  /** True when a retryable failure outlived its retries (its next step is then `fallback`). */
  readonly retriesExhausted?: boolean | undefined;
  /** True for an ambiguous failure: repeat the call only if it is idempotent. */
  readonly retryOnlyIfIdempotent?: boolean | undefined;
  readonly nextStep?: string | undefined;
  readonly providerMetadata: {
    readonly origin?: string | undefined;
    readonly networkPhase?: string | undefined;
  };
}

/** What `call` gets: the scenario it plays (to pick the API), the signal for the SDK, the SDK's own timeout. */
export interface OptionCall {
  readonly scenario: Pick<Scenario, 'api' | 'stream' | 'response'>;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
}

export interface OptionRetryEvent {
  readonly attempt: number;
  readonly delayMs: number;
}

/** The options the matrix passes; render's WithClassifiedErrorsOptions accepts them. */
export interface OptionMatrixOptions {
  readonly signal?: AbortSignal | undefined;
  readonly deadlineMs?: number | undefined;
  readonly idempotent?: boolean | undefined;
  readonly inspectResult?: undefined;
  readonly detectBlockedAnswer?: boolean | undefined;
  readonly retry?:
    | false
    | {
        readonly maxAttempts?: number | undefined;
        readonly maxElapsedMs?: number | undefined;
        readonly baseDelayMs?: number | undefined;
        readonly maxRetryAfterSeconds?: number | undefined;
        readonly random?: (() => number) | undefined;
        readonly now?: (() => number) | undefined;
        readonly onRetry?: ((event: OptionRetryEvent) => void) | undefined;
      }
    | undefined;
}

export type BoundCall = (
  fn: (context: { readonly signal: AbortSignal | undefined; readonly attempt: number }) => Promise<unknown>,
  options?: OptionMatrixOptions,
) => Promise<unknown>;

export interface OptionMatrix<Sdk extends { readonly alias: string }> {
  /** The provider key every classified error must carry (and its scenario folder). */
  readonly provider: string;
  /** Every supported major, by devDependency alias; checked against `sdkPackage`'s aliases. */
  readonly sdks: readonly Sdk[];
  readonly sdkPackage: { readonly name: string; readonly packageDir: string };
  readonly server?: LoopbackServerOptions | undefined;
  /** The non-streaming scenarios `call` can play (by `api`); the matrix picks its cases among them. */
  plays(scenario: Scenario): boolean;
  /** One request through the real SDK at `baseUrl` (SDK retries off), as `scenario.api` asks. */
  call(sdk: Sdk, baseUrl: string, call: OptionCall): Promise<unknown>;
  /** A healthy answer of one API `call` plays, and that API (for a retry that then succeeds). */
  readonly success: { readonly api?: string | undefined; readonly response: ScenarioResponse };
  /**
   * A 200 whose answer was withheld by a content filter, for the `inspectResult` cells, when the
   * provider's folder has no such scenario (`http`, status 200, expected `content_policy`).
   */
  readonly blockedAnswer?:
    | { readonly api?: string | undefined; readonly response: ScenarioResponse }
    | undefined;
  /**
   * The one documented exception to "a caller's abort given to the SDK alone leaves untouched": an
   * SDK that throws the very same error for its own timeout and for the caller's abort (@google/genai),
   * so that without the signal nothing can tell them apart. Say why; the matrix then checks the
   * documented outcome (a `timeout`, never `unknown`) and that retrying it neither hangs nor sends
   * a second request.
   */
  readonly sdkOnlyAbortReadsAsTimeout?: string | undefined;
  /**
   * Majors (by alias) on which that exception's retry cell is a known gap, with why: the cell runs
   * as `it.fails`, so it turns red the day the gap closes and the entry must go.
   */
  readonly sdkOnlyAbortRetryGap?: Readonly<Record<string, string>> | undefined;
  /**
   * Why the SDK's errors carry no Retry-After (ollama-js keeps no headers): the Retry-After cells
   * then check that a retryable failure answered with `retry-after` is waited for by the backoff
   * alone and reported without a wait, so that the day the SDK keeps the header the cell turns red.
   */
  readonly noRetryAfter?: string | undefined;
  /**
   * Why the provider never withholds an answer in a 200 (providers.json "lacks" detectBlockedAnswer):
   * the inspectResult cells then check that a healthy 200 passes under every inspectResult setting.
   */
  readonly noBlockedAnswer?: string | undefined;
  /** The provider's bound `withClassifiedErrors`. */
  readonly withClassifiedErrors: BoundCall;
  /**
   * The provider's stream guard, and one streaming surface to run it on; absent only while the
   * provider has no guard (providers.json names no `streamGuard`: parity checks the two agree).
   */
  readonly stream?: {
    readonly name: string;
    /** The response of a stream that sends its first chunks, then stalls (`sseFrame(partial, 'stall')` …). */
    readonly stalled: ScenarioResponse;
    /** The path the SDK's base URL carries after the loopback prefix (e.g. `/v1`). */
    readonly pathPrefix?: string | undefined;
    /** True when the guard itself releases the SDK's request on a stall (see StreamSurface). */
    readonly releasesRequest?: boolean | undefined;
    open(sdk: Sdk, baseUrl: string, call: OpenCall): Promise<AsyncIterable<unknown>>;
    guard(stream: AsyncIterable<unknown>, options: GuardCallOptions): AsyncIterable<unknown>;
  };
  /** The report of a classified error, `undefined` for anything else (a raw error). */
  reportOf(error: unknown): OptionReport | undefined;
}

/** The deadline of the deadline cells: short, as the never-answering request never ends by itself. */
const DEADLINE_MS = 300;
/** The SDK's own timeout: far past every deadline and idle timer, so only faultline's can fire. */
const SDK_TIMEOUT_MS = 60_000;
/** The idle timer of the stall cell. */
const STALL_IDLE_MS = 300;
/** A vitest timeout per cell: a call that hangs fails here, well before the SDK's timeout. */
const CELL_TIMEOUT_MS = 20_000;
/** The values `deadlineMs` must refuse (the README: a positive, finite number of milliseconds). */
export const INVALID_DEADLINES: readonly number[] = [0, -1, Number.NaN, Number.POSITIVE_INFINITY];
/** The values a stream guard's `idleTimeoutMs` must refuse (a duration ≥ 0; 0 and Infinity turn it off). */
export const INVALID_IDLE_TIMEOUTS: readonly number[] = [-1, Number.NaN];
/** The values `retry.maxAttempts` must refuse (a whole number of attempts, at least 1). */
export const INVALID_MAX_ATTEMPTS: readonly number[] = [-1, 0, 1.5, Number.NaN];
/** The values `retry.maxElapsedMs` must refuse (a time budget: a finite number of ms > 0). */
export const INVALID_MAX_ELAPSED: readonly number[] = [0, -1, Number.NaN, Number.POSITIVE_INFINITY];

/** What a call ended with: its value, or what it threw (synchronously or as the rejection). */
interface Settled {
  readonly threw: boolean;
  readonly error: unknown;
  readonly value: unknown;
}

async function settle(run: () => Promise<unknown>): Promise<Settled> {
  try {
    return { threw: false, error: undefined, value: await run() };
  } catch (error) {
    return { threw: true, error, value: undefined };
  }
}

/** Waits until `condition` holds (polling), or fails after a few seconds. Never a timing assertion. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The kinds of scenario the cells need, each a predicate over a scenario and its expectation for one major. */
type Pick_ = (scenario: Scenario, expected: ReturnType<typeof expectedFor>) => boolean;

const isHttpError = (scenario: Scenario) =>
  scenario.response.kind === 'http' && scenario.response.status >= 400;

export const SCENARIO_KINDS = {
  /** The server reads the request and never answers. */
  neverAnswer: (scenario) =>
    scenario.response.kind === 'socket' && scenario.response.behaviour === 'never-answer',
  /** A transient HTTP failure with no wait of its own (a 5xx, a busy provider). */
  transient: (scenario, expected) =>
    isHttpError(scenario) && expected.retryable && expected.retryAfterSeconds === undefined,
  /** A transient HTTP failure that says how long to wait, within the default cap of 60 s. */
  retryAfter: (scenario, expected) =>
    isHttpError(scenario) &&
    expected.retryable &&
    expected.retryAfterSeconds !== undefined &&
    expected.retryAfterSeconds > 0 &&
    expected.retryAfterSeconds <= 60,
  /** A permanent HTTP failure: bad credentials, the request itself, spent money. */
  permanent: (scenario, expected) =>
    isHttpError(scenario) &&
    !expected.retryable &&
    TAXONOMY[expected.reason].category !== 'ambiguous' &&
    ['auth', 'invalid_request', 'billing', 'permission'].includes(expected.reason),
  /** The request was written, then the connection dropped: it may or may not have run. */
  ambiguous: (scenario, expected) =>
    scenario.response.kind === 'socket' &&
    scenario.response.behaviour === 'reset-after-request' &&
    TAXONOMY[expected.reason].category === 'ambiguous',
  /** A 200 whose answer a content filter withheld. */
  blockedAnswer: (scenario, expected) =>
    scenario.response.kind === 'http' &&
    scenario.response.status === 200 &&
    expected.reason === 'content_policy',
} satisfies Record<string, Pick_>;
export type ScenarioKind = keyof typeof SCENARIO_KINDS;

/**
 * The first scenario (by id) of `kind` that `plays` accepts and the major does not skip, with its
 * expectation for that major; undefined when the folder has none.
 */
export function pickScenario(
  scenarios: readonly Scenario[],
  kind: ScenarioKind,
  alias: string,
  plays: (scenario: Scenario) => boolean,
): { scenario: Scenario; expected: ReturnType<typeof expectedFor> } | undefined {
  for (const scenario of scenarios) {
    if (scenario.stream === true || !plays(scenario)) continue;
    const expected = expectedFor(scenario, alias);
    if (expected.skip !== undefined) continue;
    if (SCENARIO_KINDS[kind](scenario, expected)) return { scenario, expected };
  }
  return undefined;
}

/** Registers the matrix's suites. */
export function optionMatrix<Sdk extends { readonly alias: string }>(matrix: OptionMatrix<Sdk>): void {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer(matrix.server ?? {});
  });
  afterAll(async () => {
    await server?.close();
  });
  const scenarios = loadScenarios(matrix.provider);

  describe(`${matrix.provider} option matrix`, () => {
    it('covers every installed major of the SDK', () => {
      expect(matrix.sdks.map((sdk) => sdk.alias).sort()).toEqual(
        installedMajors(matrix.sdkPackage.packageDir, matrix.sdkPackage.name),
      );
    });
  });

  for (const sdk of matrix.sdks) registerMajor(matrix, sdk, scenarios, () => server);
}

function registerMajor<Sdk extends { readonly alias: string }>(
  matrix: OptionMatrix<Sdk>,
  sdk: Sdk,
  scenarios: readonly Scenario[],
  serverOf: () => LoopbackServer,
): void {
  const bound = matrix.withClassifiedErrors;
  const pick = (kind: ScenarioKind) => {
    const found = pickScenario(scenarios, kind, sdk.alias, matrix.plays);
    if (found === undefined) {
      throw new Error(
        `packages/llm-mock/scenarios/${matrix.provider} has no ${kind} scenario that this call plays: add one`,
      );
    }
    // A copy per cell: the server counts requests per scenario object.
    return { scenario: { ...found.scenario }, expected: found.expected };
  };
  const urlFor = (scenario: Pick<Scenario, 'response'>) => serverOf().baseUrlFor(scenario);
  const countOf = (scenario: Pick<Scenario, 'response'>) => serverOf().requests(scenario).length;
  /** `fn` for withClassifiedErrors: the scenario through the real SDK, with the attempt's signal. */
  const callOf =
    (scenario: Pick<Scenario, 'api' | 'stream' | 'response'>, url = urlFor(scenario)) =>
    ({ signal }: { readonly signal: AbortSignal | undefined }) =>
      matrix.call(sdk, url, { scenario, signal, timeoutMs: SDK_TIMEOUT_MS });

  /** Rule 4: what left withClassifiedErrors is classified (a FaultlineError of this provider), never raw. */
  const expectClassified = (outcome: Settled): OptionReport => {
    expect(outcome.threw, 'the call resolved; a failure was expected').toBe(true);
    const report = matrix.reportOf(outcome.error);
    expect(report, `a raw error left withClassifiedErrors: ${describe_(outcome.error)}`).toBeDefined();
    expect(report!.provider).toBe(matrix.provider);
    return report!;
  };
  /** The taxonomy's row for `reason`; with `idempotent`, an ambiguous failure is retryable (classify's rule). */
  const expectReason = (report: OptionReport, reason: FailureReason, idempotent = false) => {
    const row = TAXONOMY[reason];
    expect(report).toMatchObject({
      reason,
      category: row.category,
      retryable: row.retryable || (idempotent && row.category === 'ambiguous'),
    });
  };
  /** Rule 4's one exception: the caller's own abort, exactly as the SDK threw it unguarded. */
  const expectCallerAbort = (outcome: Settled, plain: Settled) => {
    expect(outcome.threw, 'an aborted call must not resolve').toBe(true);
    expect(
      matrix.reportOf(outcome.error),
      `the caller's abort was classified as ${matrix.reportOf(outcome.error)?.reason}: ${describe_(outcome.error)}`,
    ).toBeUndefined();
    expect(plain.threw, 'the unguarded SDK call resolved after its abort').toBe(true);
    expect((outcome.error as Error)?.constructor).toBe((plain.error as Error)?.constructor);
    expect((outcome.error as Error)?.name).toBe((plain.error as Error)?.name);
  };
  /** The SDK unguarded, its signal aborted once the never-answering request reached the server. */
  const plainAbort = async (): Promise<Settled> => {
    const { scenario } = pick('neverAnswer');
    const controller = new AbortController();
    const url = urlFor(scenario);
    const before = countOf(scenario);
    const running = settle(() =>
      matrix.call(sdk, url, { scenario, signal: controller.signal, timeoutMs: SDK_TIMEOUT_MS }),
    );
    await until(() => countOf(scenario) > before, 'the request to reach the server');
    controller.abort();
    return running;
  };

  describe(`${matrix.provider} ${sdk.alias}: withClassifiedErrors options`, {
    timeout: CELL_TIMEOUT_MS,
  }, () => {
    // deadlineMs ---------------------------------------------------------------------------------
    it('deadlineMs without a caller signal: the deadline firing is timeout, whatever the SDK throws', async () => {
      const { scenario } = pick('neverAnswer');
      const outcome = await settle(() => bound(callOf(scenario), { deadlineMs: DEADLINE_MS }));
      expectReason(expectClassified(outcome), 'timeout');
      // Never retried (on a loaded machine the deadline may fire before the request is even sent).
      expect(countOf(scenario)).toBeLessThanOrEqual(1);
    });

    it('deadlineMs with a caller signal that never fires: the deadline firing is timeout', async () => {
      const { scenario } = pick('neverAnswer');
      const signal = new AbortController().signal;
      const outcome = await settle(() => bound(callOf(scenario), { deadlineMs: DEADLINE_MS, signal }));
      expectReason(expectClassified(outcome), 'timeout');
      // Never retried (on a loaded machine the deadline may fire before the request is even sent).
      expect(countOf(scenario)).toBeLessThanOrEqual(1);
    });

    it('deadlineMs with retries: the deadline ends the whole call as timeout, retries included', async () => {
      const { scenario } = pick('neverAnswer');
      const outcome = await settle(() =>
        bound(callOf(scenario), { deadlineMs: DEADLINE_MS, retry: { maxAttempts: 3, baseDelayMs: 1 } }),
      );
      const report = expectClassified(outcome);
      expectReason(report, 'timeout');
      // A retryable failure the deadline gave up on outlived its retries.
      expect(report.retriesExhausted, 'report.retriesExhausted').toBe(true);
      expect(report.nextStep).toBe('fallback');
      // Never retried (on a loaded machine the deadline may fire before the request is even sent).
      expect(countOf(scenario)).toBeLessThanOrEqual(1);
    });

    for (const deadlineMs of INVALID_DEADLINES) {
      it(`deadlineMs ${deadlineMs}: a TypeError at the call, before any request`, async () => {
        const scenario = { response: matrix.success.response, api: matrix.success.api };
        let called = 0;
        const outcome = await settle(() =>
          bound(
            (context) => {
              called += 1;
              return callOf(scenario)(context);
            },
            { deadlineMs },
          ),
        );
        expect(outcome.threw, `deadlineMs ${deadlineMs} was accepted`).toBe(true);
        expect(outcome.error, describe_(outcome.error)).toBeInstanceOf(TypeError);
        expect(String((outcome.error as Error).message)).toMatch(/deadlineMs/);
        expect(called).toBe(0);
        expect(countOf(scenario)).toBe(0);
      });
    }

    for (const maxElapsedMs of INVALID_MAX_ELAPSED) {
      it(`retry.maxElapsedMs ${maxElapsedMs}: a TypeError at the call, before any request`, async () => {
        const scenario = { response: matrix.success.response, api: matrix.success.api };
        let called = 0;
        const outcome = await settle(() =>
          bound(
            (context) => {
              called += 1;
              return callOf(scenario)(context);
            },
            { retry: { maxElapsedMs } },
          ),
        );
        expect(outcome.threw, `maxElapsedMs ${maxElapsedMs} was accepted`).toBe(true);
        expect(outcome.error, describe_(outcome.error)).toBeInstanceOf(TypeError);
        expect(String((outcome.error as Error).message)).toMatch(/maxElapsedMs/);
        expect(called).toBe(0);
        expect(countOf(scenario)).toBe(0);
      });
    }

    for (const maxAttempts of INVALID_MAX_ATTEMPTS) {
      it(`retry.maxAttempts ${maxAttempts}: a TypeError at the call, before any request`, async () => {
        const scenario = { response: matrix.success.response, api: matrix.success.api };
        let called = 0;
        const outcome = await settle(() =>
          bound(
            (context) => {
              called += 1;
              return callOf(scenario)(context);
            },
            { retry: { maxAttempts } },
          ),
        );
        expect(outcome.threw, `maxAttempts ${maxAttempts} was accepted`).toBe(true);
        expect(outcome.error, describe_(outcome.error)).toBeInstanceOf(TypeError);
        expect(String((outcome.error as Error).message)).toMatch(/maxAttempts/);
        expect(called).toBe(0);
        expect(countOf(scenario)).toBe(0);
      });
    }

    // signal -------------------------------------------------------------------------------------
    it("signal given to faultline and to the SDK, aborted mid-request: the SDK's own abort error, untouched, never retried", async () => {
      const plain = await plainAbort();
      const { scenario } = pick('neverAnswer');
      const controller = new AbortController();
      const running = settle(() =>
        bound(callOf(scenario), { signal: controller.signal, retry: { maxAttempts: 3, baseDelayMs: 1 } }),
      );
      await until(() => countOf(scenario) > 0, 'the request to reach the server');
      controller.abort();
      expectCallerAbort(await running, plain);
      expect(countOf(scenario)).toBe(1);
    });

    /** The SDK-only abort: the call given the caller's signal, faultline not; aborted mid-request. */
    const sdkOnlyAbort = async (retry: OptionMatrixOptions['retry']) => {
      const { scenario } = pick('neverAnswer');
      const controller = new AbortController();
      const url = urlFor(scenario);
      const running = settle(() =>
        bound(
          () => matrix.call(sdk, url, { scenario, signal: controller.signal, timeoutMs: SDK_TIMEOUT_MS }),
          {
            retry,
          },
        ),
      );
      await until(() => countOf(scenario) > 0, 'the request to reach the server');
      controller.abort();
      return { outcome: await running, count: () => countOf(scenario) };
    };
    const exception = matrix.sdkOnlyAbortReadsAsTimeout;
    if (exception === undefined) {
      it("signal given to the SDK only, aborted mid-request: the SDK's own abort error, never unknown, never retried", async () => {
        const plain = await plainAbort();
        const { outcome, count } = await sdkOnlyAbort({ maxAttempts: 3, baseDelayMs: 1 });
        const report = matrix.reportOf(outcome.error);
        expect(report?.reason, 'the caller’s abort came out unknown').not.toBe('unknown');
        expectCallerAbort(outcome, plain);
        expect(count()).toBe(1);
      });
    } else {
      it(`signal given to the SDK only, aborted mid-request: timeout, the documented exception (${exception})`, async () => {
        const { outcome, count } = await sdkOnlyAbort(false);
        expectReason(expectClassified(outcome), 'timeout');
        expect(count()).toBe(1);
      });
      const gap = matrix.sdkOnlyAbortRetryGap?.[sdk.alias];
      (gap === undefined ? it : it.fails)(
        `signal given to the SDK only, with retry on: the aborted call ends, and no second request is sent${gap === undefined ? '' : ` (known gap: ${gap})`}`,
        {
          timeout: 5_000,
        },
        async () => {
          const { outcome, count } = await sdkOnlyAbort({ maxAttempts: 2, baseDelayMs: 1 });
          expect(outcome.threw).toBe(true);
          expect(matrix.reportOf(outcome.error)?.reason, describe_(outcome.error)).not.toBe('unknown');
          expect(count()).toBe(1);
        },
      );
    }

    it('signal already aborted before the call: its reason, and no request reaches the server', async () => {
      const scenario = { response: matrix.success.response, api: matrix.success.api };
      const controller = new AbortController();
      controller.abort();
      for (const options of [{}, { retry: { maxAttempts: 3 } }, { deadlineMs: 5_000 }] as const) {
        const outcome = await settle(() =>
          bound(callOf(scenario), { ...options, signal: controller.signal }),
        );
        expect(outcome.threw).toBe(true);
        expect(matrix.reportOf(outcome.error), describe_(outcome.error)).toBeUndefined();
        expect(outcome.error).toBe(controller.signal.reason);
      }
      expect(countOf(scenario)).toBe(0);
    });

    // retry --------------------------------------------------------------------------------------
    it('retry: a transient failure is retried until maxAttempts, and the report says the retries ran out', async () => {
      const { scenario, expected } = pick('transient');
      const retries: OptionRetryEvent[] = [];
      const outcome = await settle(() =>
        bound(callOf(scenario), {
          retry: { maxAttempts: 3, baseDelayMs: 1, random: () => 0, onRetry: (event) => retries.push(event) },
        }),
      );
      const report = expectClassified(outcome);
      expectReason(report, expected.reason);
      expect(countOf(scenario)).toBe(3);
      expect(retries.map((event) => event.attempt)).toEqual([1, 2]);
      expect(report.attempts?.made, 'report.attempts.made').toBe(3);
      expect(report.attempts?.waitsMs).toEqual(retries.map((event) => event.delayMs));
      expect(report.retriesExhausted, 'report.retriesExhausted').toBe(true);
      expect(report.nextStep).toBe('fallback');
    });

    it('retry: a transient failure then a success resolves with the success', async () => {
      const { scenario } = pick('transient');
      const healthy = { response: matrix.success.response, api: matrix.success.api };
      const failingUrl = urlFor(scenario);
      const healthyUrl = urlFor(healthy);
      const outcome = await settle(() =>
        bound(
          ({ signal, attempt }) =>
            attempt === 1
              ? callOf(scenario, failingUrl)({ signal })
              : callOf(healthy, healthyUrl)({ signal }),
          { retry: { maxAttempts: 3, baseDelayMs: 1, random: () => 0 } },
        ),
      );
      expect(outcome.threw, describe_(outcome.error)).toBe(false);
      expect(countOf(scenario)).toBe(1);
      expect(countOf(healthy)).toBe(1);
    });

    it.runIf(matrix.noRetryAfter !== undefined)(
      `retry: no Retry-After reaches the report (${matrix.noRetryAfter}): the backoff alone waits`,
      async () => {
        const { scenario, expected } = pick('transient');
        const response = scenario.response;
        if (response.kind !== 'http') throw new Error(`${scenario.id} is not an HTTP answer`);
        const withHeader = {
          ...scenario,
          response: { ...response, headers: { ...(response.headers ?? {}), 'retry-after': '30' } },
        };
        const retries: OptionRetryEvent[] = [];
        const outcome = await settle(() =>
          bound(callOf(withHeader), {
            retry: {
              maxAttempts: 2,
              baseDelayMs: 1,
              random: () => 0,
              onRetry: (event) => retries.push(event),
            },
          }),
        );
        const report = expectClassified(outcome);
        expectReason(report, expected.reason);
        expect(report.retryAfterSeconds).toBeUndefined();
        expect(retries).toHaveLength(1);
        expect(retries[0]!.delayMs).toBeLessThan(30_000);
        expect(countOf(withHeader)).toBe(2);
      },
    );

    it.runIf(matrix.noRetryAfter === undefined)(
      'retry: the wait honours Retry-After (and the caller aborting the wait gets its own reason)',
      async () => {
        const { scenario, expected } = pick('retryAfter');
        const controller = new AbortController();
        const retries: OptionRetryEvent[] = [];
        const outcome = await settle(() =>
          bound(callOf(scenario), {
            signal: controller.signal,
            retry: {
              maxAttempts: 2,
              baseDelayMs: 1,
              random: () => 0,
              onRetry: (event) => {
                retries.push(event);
                // Seen the wait: no need to sit through it.
                controller.abort();
              },
            },
          }),
        );
        expect(retries).toHaveLength(1);
        expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(expected.retryAfterSeconds! * 1000);
        expect(outcome.threw).toBe(true);
        expect(outcome.error).toBe(controller.signal.reason);
        expect(countOf(scenario)).toBe(1);
      },
    );

    it.runIf(matrix.noRetryAfter === undefined)(
      'retry: a Retry-After above maxRetryAfterSeconds is not waited for; the wait is in the report',
      async () => {
        const { scenario, expected } = pick('retryAfter');
        const retries: OptionRetryEvent[] = [];
        const outcome = await settle(() =>
          bound(callOf(scenario), {
            retry: {
              maxAttempts: 3,
              baseDelayMs: 1,
              maxRetryAfterSeconds: expected.retryAfterSeconds! / 2,
              onRetry: (event) => retries.push(event),
            },
          }),
        );
        const report = expectClassified(outcome);
        expectReason(report, expected.reason);
        expect(report.retryAfterSeconds).toBe(expected.retryAfterSeconds);
        expect(retries).toEqual([]);
        expect(countOf(scenario)).toBe(1);
      },
    );

    it('retry.maxElapsedMs alone: a transient failure is retried until the time budget is spent, on its clock', async () => {
      const { scenario, expected } = pick('transient');
      // Each attempt moves the budget's clock by a second; the backoff waits are 0 (random 0).
      let clock = 0;
      const url = urlFor(scenario);
      const outcome = await settle(() =>
        bound(
          (context) => {
            clock += 1_000;
            return callOf(scenario, url)(context);
          },
          { retry: { maxElapsedMs: 2_500, baseDelayMs: 1, random: () => 0, now: () => clock } },
        ),
      );
      const report = expectClassified(outcome);
      expectReason(report, expected.reason);
      // 1 s and 2 s are within 2.5 s; after the third attempt (3 s) no wait may start.
      expect(countOf(scenario)).toBe(3);
      expect(report.attempts?.made, 'report.attempts.made').toBe(3);
      expect(report.retriesExhausted, 'report.retriesExhausted').toBe(true);
      expect(report.nextStep).toBe('fallback');
    });

    it.runIf(matrix.noRetryAfter === undefined)(
      'retry.maxElapsedMs: a Retry-After longer than the budget left ends the call at once, with its wait and retryableAt',
      async () => {
        const { scenario, expected } = pick('retryAfter');
        const retries: OptionRetryEvent[] = [];
        const before = Date.now();
        const outcome = await settle(() =>
          bound(callOf(scenario), {
            retry: {
              maxAttempts: 5,
              baseDelayMs: 1,
              maxElapsedMs: (expected.retryAfterSeconds! * 1000) / 2,
              onRetry: (event) => retries.push(event),
            },
          }),
        );
        const after = Date.now();
        const report = expectClassified(outcome);
        expectReason(report, expected.reason);
        expect(retries, 'a wait past the budget was started').toEqual([]);
        expect(countOf(scenario)).toBe(1);
        expect(report.retriesExhausted, 'report.retriesExhausted').toBe(true);
        expect(report.retryAfterSeconds).toBe(expected.retryAfterSeconds);
        // retryableAt is the failure's time plus the wait: the failure happened during the call.
        const failedAt = Date.parse(report.retryableAt ?? '') - expected.retryAfterSeconds! * 1000;
        expect(failedAt, `retryableAt ${report.retryableAt}`).toBeGreaterThanOrEqual(before - 1);
        expect(failedAt, `retryableAt ${report.retryableAt}`).toBeLessThanOrEqual(after + 1);
      },
    );

    it('retry: a permanent failure is never retried', async () => {
      const { scenario, expected } = pick('permanent');
      const outcome = await settle(() =>
        bound(callOf(scenario), { retry: { maxAttempts: 3, baseDelayMs: 1 } }),
      );
      const report = expectClassified(outcome);
      expectReason(report, expected.reason);
      expect(report.retriesExhausted, 'a permanent failure outlived no retries').not.toBe(true);
      expect(countOf(scenario)).toBe(1);
    });

    // idempotent ---------------------------------------------------------------------------------
    it('idempotent: an interrupted request is retried only with idempotent: true', async () => {
      const { scenario, expected } = pick('ambiguous');
      const retry = { maxAttempts: 2, baseDelayMs: 1, random: () => 0 };
      const once = await settle(() => bound(callOf(scenario), { retry }));
      const first = expectClassified(once);
      expectReason(first, expected.reason);
      expect(first.retryOnlyIfIdempotent, 'report.retryOnlyIfIdempotent').toBe(true);
      expect(first.retriesExhausted).not.toBe(true);
      expect(countOf(scenario)).toBe(1);
      const again = { ...scenario, response: { ...scenario.response } };
      const twice = await settle(() => bound(callOf(again), { retry, idempotent: true }));
      const report = expectClassified(twice);
      expectReason(report, expected.reason, true);
      expect(countOf(again)).toBe(2);
      expect(report.attempts?.made, 'report.attempts.made').toBe(2);
      expect(report.retriesExhausted, 'report.retriesExhausted').toBe(true);
    });

    // inspectResult ------------------------------------------------------------------------------
    const blocked = () => {
      const found = pickScenario(scenarios, 'blockedAnswer', sdk.alias, matrix.plays);
      if (found !== undefined) return { scenario: { ...found.scenario }, reason: found.expected.reason };
      if (matrix.blockedAnswer === undefined) {
        throw new Error(
          `packages/llm-mock/scenarios/${matrix.provider} has no content-filtered 200 this call plays, and the matrix was given no blockedAnswer`,
        );
      }
      return { scenario: { ...matrix.blockedAnswer }, reason: 'content_policy' as const };
    };
    it.runIf(matrix.noBlockedAnswer !== undefined)(
      `inspectResult: no answer is ever withheld (${matrix.noBlockedAnswer}): a healthy 200 passes under every setting`,
      async () => {
        const scenario = { ...matrix.success, response: { ...matrix.success.response } };
        for (const options of [
          undefined,
          { detectBlockedAnswer: false },
          { detectBlockedAnswer: true },
          { inspectResult: undefined },
        ]) {
          const outcome = await settle(() => bound(callOf(scenario), options));
          expect(outcome.threw, describe_(outcome.error)).toBe(false);
          expect(outcome.value).toBeDefined();
        }
        expect(countOf(scenario), 'one request per call').toBe(4);
      },
    );

    it.runIf(matrix.noBlockedAnswer === undefined)(
      "inspectResult: the adapter's default reads a content-filtered 200 as content_policy",
      async () => {
        const { scenario, reason } = blocked();
        const outcome = await settle(() => bound(callOf(scenario)));
        expectReason(expectClassified(outcome), reason);
      },
    );

    it.runIf(matrix.noBlockedAnswer === undefined)(
      'detectBlockedAnswer: false returns the blocked 200 as a result in one request; true throws it as content_policy',
      async () => {
        const { scenario, reason } = blocked();
        const outcome = await settle(() => bound(callOf(scenario), { detectBlockedAnswer: false }));
        expect(outcome.threw, describe_(outcome.error)).toBe(false);
        expect(outcome.value).toBeDefined();
        expect(countOf(scenario), 'one request, no retry').toBe(1);
        const kept = await settle(() => bound(callOf(scenario), { detectBlockedAnswer: true }));
        const report = expectClassified(kept);
        expectReason(report, reason);
        expect(report.providerMetadata.origin, 'a withheld answer').toBe('blocked_response');
      },
    );

    it.runIf(matrix.noBlockedAnswer === undefined)(
      'inspectResult: undefined lets the same 200 pass as a success',
      async () => {
        const { scenario } = blocked();
        const outcome = await settle(() => bound(callOf(scenario), { inspectResult: undefined }));
        expect(outcome.threw, describe_(outcome.error)).toBe(false);
        expect(outcome.value).toBeDefined();
      },
    );
  });

  if (matrix.stream !== undefined) registerStreamCells(matrix, matrix.stream, sdk, serverOf);
}

function registerStreamCells<Sdk extends { readonly alias: string }>(
  matrix: OptionMatrix<Sdk>,
  surface: NonNullable<OptionMatrix<Sdk>['stream']>,
  sdk: Sdk,
  serverOf: () => LoopbackServer,
): void {
  const guard = surface.guard;
  const stalled = () => ({ response: surface.stalled });
  const open = (scenario: { response: ScenarioResponse }, signal: AbortSignal) =>
    surface.open(
      sdk,
      serverOf().baseUrlFor(
        scenario,
        surface.pathPrefix === undefined ? {} : { pathPrefix: surface.pathPrefix },
      ),
      { signal, timeoutMs: SDK_TIMEOUT_MS },
    );

  describe(`${matrix.provider} ${sdk.alias}: stream guard options (${surface.name})`, {
    timeout: CELL_TIMEOUT_MS,
  }, () => {
    it('idleTimeoutMs: a stall ends as interrupted, origin timeout, classified', async () => {
      const controller = new AbortController();
      const outcome = await drain(
        guard(await open(stalled(), controller.signal), {
          idleTimeoutMs: STALL_IDLE_MS,
          ...(surface.releasesRequest === true ? {} : { onAbandon: () => controller.abort() }),
        }),
      );
      expect(outcome.threw).toBe(true);
      const report = matrix.reportOf(outcome.error);
      expect(report, `a raw error left the guard: ${describe_(outcome.error)}`).toBeDefined();
      expect(report).toMatchObject({
        provider: matrix.provider,
        reason: 'interrupted',
        category: TAXONOMY.interrupted.category,
        providerMetadata: { origin: 'timeout' },
      });
    });

    it("idleTimeoutMs: 0 turns the idle timer off: the stall runs until the caller's signal ends it, untouched", async () => {
      const plainController = new AbortController();
      const plain = await drain(await open(stalled(), plainController.signal), () => {
        setTimeout(() => plainController.abort(), 50);
      });
      const controller = new AbortController();
      let abortedBeforeEnd = false;
      const source = await open(stalled(), controller.signal);
      // Well past what a misread 0 (an immediate timer) would take, yet no timing is asserted:
      // only that the stream was still open when the caller aborted.
      const outcome = await drain(guard(source, { idleTimeoutMs: 0, signal: controller.signal }), () => {
        setTimeout(() => controller.abort(), 2 * STALL_IDLE_MS);
      });
      abortedBeforeEnd = controller.signal.aborted;
      expect(
        abortedBeforeEnd,
        `the guard ended the stream before the caller's abort: ${describe_(outcome.error)}`,
      ).toBe(true);
      expectStreamCallerAbort(matrix, outcome, plain, controller.signal);
    });

    it("signal: the caller's abort mid-stream leaves as the SDK's own abort (or the signal's reason), never classified", async () => {
      const plainController = new AbortController();
      const plain = await drain(await open(stalled(), plainController.signal), () => plainController.abort());
      const controller = new AbortController();
      const outcome = await drain(
        guard(await open(stalled(), controller.signal), {
          idleTimeoutMs: CELL_TIMEOUT_MS,
          signal: controller.signal,
        }),
        () => controller.abort(),
      );
      expectStreamCallerAbort(matrix, outcome, plain, controller.signal);
    });

    it("signal given to the guard only, the SDK's request left running: the stall ends with the signal's reason at the idle timer, the request released", async () => {
      const scenario = stalled();
      const sdkController = new AbortController();
      const caller = new AbortController();
      const source = await open(scenario, sdkController.signal);
      let released = false;
      const outcome = await drain(
        guard(source, {
          idleTimeoutMs: STALL_IDLE_MS,
          signal: caller.signal,
          onAbandon: () => {
            released = true;
            sdkController.abort();
          },
        }),
        () => caller.abort(),
      );
      expect(outcome.threw, 'an aborted stream must not end as if it were complete').toBe(true);
      expect(
        matrix.reportOf(outcome.error),
        `the caller's abort was classified as ${matrix.reportOf(outcome.error)?.reason}: ${describe_(outcome.error)}`,
      ).toBeUndefined();
      expect(outcome.error).toBe(caller.signal.reason);
      expect(released || surface.releasesRequest === true, 'the stalled request was never released').toBe(
        true,
      );
      const [request] = serverOf().requests(scenario);
      await until(() => request?.responseClosed === true, 'the server to see the stalled request closed');
    });

    for (const idleTimeoutMs of INVALID_IDLE_TIMEOUTS) {
      it(`idleTimeoutMs ${idleTimeoutMs}: a TypeError at the call, before the stream is read`, async () => {
        let pulled = 0;
        const source: AsyncIterable<unknown> = {
          [Symbol.asyncIterator]: () => ({
            next: async () => {
              pulled += 1;
              return { done: true, value: undefined };
            },
          }),
        };
        const outcome = await settle(async () => drain(guard(source, { idleTimeoutMs })));
        expect(outcome.threw, `idleTimeoutMs ${idleTimeoutMs} was accepted`).toBe(true);
        expect(outcome.error, describe_(outcome.error)).toBeInstanceOf(TypeError);
        expect(String((outcome.error as Error).message)).toMatch(/idleTimeoutMs/);
        expect(pulled).toBe(0);
      });
    }

    it(`signal given to the SDK only, aborted mid-stream: ${matrix.sdkOnlyAbortReadsAsTimeout === undefined ? "the SDK's own abort error, untouched" : 'interrupted, the documented exception'}`, async () => {
      const plainController = new AbortController();
      const plain = await drain(await open(stalled(), plainController.signal), () => plainController.abort());
      const controller = new AbortController();
      const outcome = await drain(
        guard(await open(stalled(), controller.signal), { idleTimeoutMs: CELL_TIMEOUT_MS }),
        () => controller.abort(),
      );
      if (matrix.sdkOnlyAbortReadsAsTimeout !== undefined) {
        // The documented exception: the SDK's abort is its own timeout's error; mid-stream a
        // timeout is an interruption.
        expect(outcome.threw).toBe(true);
        expect(matrix.reportOf(outcome.error)?.reason, describe_(outcome.error)).toBe('interrupted');
      } else if (plain.threw) {
        expect(
          matrix.reportOf(outcome.error),
          `the caller's abort was classified as ${matrix.reportOf(outcome.error)?.reason}: ${describe_(outcome.error)}`,
        ).toBeUndefined();
        expect((outcome.error as Error)?.constructor).toBe((plain.error as Error)?.constructor);
        expect((outcome.error as Error)?.name).toBe((plain.error as Error)?.name);
      } else {
        // The SDK ends an aborted stream silently: the guard, which has no signal, can only see a
        // stream that ended without its terminal event.
        expect(outcome.threw, 'an aborted stream must not end as if it were complete').toBe(true);
        expect(matrix.reportOf(outcome.error)?.reason).toBe('interrupted');
      }
    });
  });
}

function expectStreamCallerAbort<Sdk extends { readonly alias: string }>(
  matrix: OptionMatrix<Sdk>,
  outcome: Drained,
  plain: Drained,
  signal: AbortSignal,
): void {
  expect(outcome.threw, 'an aborted stream must not end as if it were complete').toBe(true);
  expect(
    matrix.reportOf(outcome.error),
    `the caller's abort was classified as ${matrix.reportOf(outcome.error)?.reason}: ${describe_(outcome.error)}`,
  ).toBeUndefined();
  if (plain.threw) {
    expect((outcome.error as Error)?.constructor).toBe((plain.error as Error)?.constructor);
    expect((outcome.error as Error)?.name).toBe((plain.error as Error)?.name);
  } else {
    expect(outcome.error).toBe(signal.reason);
  }
}

function describe_(value: unknown): string {
  if (value instanceof Error) return `${value.constructor?.name ?? 'Error'} ${value.name}: ${value.message}`;
  return String(value);
}
