/**
 * The stream-guard matrix: for one provider, every behaviour a stream can fail in × every
 * supported SDK major × every streaming surface (the raw iterator and the SDK's helpers), played
 * by the loopback server and read through the real SDK and the provider's guard.
 *
 * A provider describes its wire format and how to open each surface; the behaviours, and what a
 * guard must make of each, are written here once. Import it from tests only
 * (`@faultline/test-fixtures/stream-matrix`): it registers vitest suites.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FailureReason, TAXONOMY } from '@faultline/classify';
import {
  type LoopbackServer,
  type LoopbackServerOptions,
  type ScenarioResponse,
  type StreamEnding,
  startLoopbackServer,
} from '@faultline/llm-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The behaviours of the matrix, in the order they run. */
export const STREAM_BEHAVIOURS = [
  'complete',
  'errorAfterChunks',
  'cutMidway',
  'stall',
  'endWithoutTerminal',
  'callerAbort',
] as const;
export type StreamBehaviour = (typeof STREAM_BEHAVIOURS)[number];

export interface DeliveredOutput {
  readonly chunks: number;
  readonly characters: number;
}

/** The part of an ErrorReport the matrix checks (render's ErrorReport satisfies it). */
export interface MatrixReport {
  readonly reason: string;
  readonly category: string;
  readonly retryable: boolean;
  readonly provider: string;
  readonly delivered?: DeliveredOutput | undefined;
  readonly providerMetadata: {
    readonly origin?: string | undefined;
    readonly networkPhase?: string | undefined;
  };
}

/** One server-sent event. */
export interface SseEvent {
  readonly event?: string | undefined;
  readonly data: string;
}

/** `frame` for an SSE API. */
export function sseFrame(events: readonly SseEvent[], ending: StreamEnding): ScenarioResponse {
  return {
    kind: 'sse',
    events: events.map((event) =>
      event.event === undefined ? { data: event.data } : { ...event },
    ) as Array<{
      event?: string;
      data: string;
    }>,
    // biome-ignore lint/suspicious/noThenProperty: the scenario format's field
    then: ending,
  };
}

/** `frame` for an NDJSON API (Ollama): one JSON text per line. */
export function ndjsonFrame(lines: readonly string[], ending: StreamEnding): ScenarioResponse {
  // biome-ignore lint/suspicious/noThenProperty: the scenario format's field
  return { kind: 'ndjson', lines: [...lines], then: ending };
}

/** One AWS event-stream message (headers and a JSON payload). */
export interface EventStreamMessage {
  readonly headers: Readonly<Record<string, string>>;
  readonly payload: string;
}

/** `frame` for an AWS event-stream API; a cut splits the last message in two. */
export function eventStreamFrame(
  messages: readonly EventStreamMessage[],
  ending: StreamEnding,
): ScenarioResponse {
  return {
    kind: 'aws-event-stream',
    messages: messages.map((message) => ({ headers: { ...message.headers }, payload: message.payload })),
    // biome-ignore lint/suspicious/noThenProperty: the scenario format's field
    then: ending,
    ...(ending === 'cut' ? { cutMidMessage: true } : {}),
  } as ScenarioResponse;
}

/** The wire format of one streaming API, and what a guard reads from it. */
export interface StreamWire<E> {
  /** The response the loopback server plays: `events`, then the ending. */
  frame(events: readonly E[], ending: StreamEnding): ScenarioResponse;
  /** A whole answer, its terminal event last. */
  readonly complete: readonly E[];
  /** The start of an answer: some text, no terminal event. */
  readonly partial: readonly E[];
  /** What the guard counts as delivered once `partial` was read. */
  readonly delivered: DeliveredOutput;
  /** Where one behaviour delivers something else (a cut that loses the frame it split). */
  readonly deliveredFor?: Partial<Record<StreamBehaviour, DeliveredOutput>> | undefined;
  /** An error event sent after `partial`, and how it must be classified. */
  readonly errorEvent: {
    readonly events: readonly E[];
    /** The reason; its category and retryability are the taxonomy's. */
    readonly reason: FailureReason;
    /**
     * Majors (by alias) that read the error event otherwise, e.g. genai 1.x, which swallows an
     * error chunk and yields an empty one instead; say why where the wire is defined.
     */
    readonly bySdk?: Readonly<
      Record<string, { readonly reason: FailureReason; readonly delivered?: DeliveredOutput }>
    >;
  };
}

export interface OpenCall {
  /** The caller's signal, to hand to the SDK. */
  readonly signal: AbortSignal;
  /** The SDK's own timeout: long, so that only the guard's idle timer can end a stall. */
  readonly timeoutMs: number;
  /** A custom `fetch` for the SDK's client (surfaces with `acceptsFetch`); the SDK's own when absent. */
  readonly fetch?: typeof globalThis.fetch | undefined;
}

/** One way of streaming with the SDK: `create({ stream: true })`, a `.stream()` helper … */
export interface StreamSurface<Sdk, E = unknown> {
  readonly name: string;
  readonly wire: StreamWire<E>;
  /** The majors that offer this surface (default: all). */
  readonly offeredBy?: ((sdk: Sdk) => boolean) | undefined;
  /** The path the SDK's base URL carries after the loopback prefix (e.g. `/v1`). */
  readonly pathPrefix?: string | undefined;
  open(sdk: Sdk, baseUrl: string, call: OpenCall): Promise<AsyncIterable<unknown>>;
  /**
   * A result method of the helper (`finalMessage`, `finalChatCompletion` …): the guarded stream
   * offers it, and the matrix checks it resolves like the SDK's own on a complete stream and
   * rejects classified on every failure.
   */
  readonly resultMethod?: string | undefined;
  /**
   * True when the guard itself closes the SDK's request once it gives up on a stall (Stainless
   * streams expose their AbortController; a web ReadableStream, as the Speakeasy SDKs return, is
   * read through the guard's own reader and cancelled). Otherwise the stall case passes `onAbandon` aborting the
   * signal the SDK was given, the recipe the READMEs give; either way the server must see the
   * request closed.
   */
  readonly releasesRequest?: boolean | undefined;
  /** True when `open` hands `call.fetch` to the SDK's client (for the stall-both-ways case). */
  readonly acceptsFetch?: boolean | undefined;
}

export interface GuardCallOptions {
  readonly idleTimeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** render's hook: release the SDK's request when the guard gives up on a stall. */
  readonly onAbandon?: (() => void) | undefined;
}

export interface StreamMatrix<Sdk extends { readonly alias: string }> {
  /** The provider key every classified error must carry. */
  readonly provider: string;
  /** Every supported major, by devDependency alias; checked against `sdkPackage`'s aliases. */
  readonly sdks: readonly Sdk[];
  /** The SDK's npm name, and the provider package's directory (for its devDependency aliases). */
  readonly sdkPackage: { readonly name: string; readonly packageDir: string };
  readonly server?: LoopbackServerOptions | undefined;
  // `any`: each surface has its own event type.
  readonly surfaces: ReadonlyArray<StreamSurface<Sdk, any>>;
  /** The provider's guard. */
  guard(stream: AsyncIterable<unknown>, options: GuardCallOptions): AsyncIterable<unknown>;
  /** The report of a classified error, `undefined` for anything else. */
  reportOf(error: unknown): MatrixReport | undefined;
}

/** How long the idle timer waits in every case but the stall. */
const IDLE_MS = 3_000;
/**
 * The idle timer of the stall cases: long enough that, on a loaded machine, the chunks sent before
 * the stall still arrive within it (the cases run side by side, so it costs little wall time).
 */
const STALL_IDLE_MS = 1_000;
/** The SDK's own timeout: well past any idle timer, so a stall is the guard's to end. */
const SDK_TIMEOUT_MS = 60_000;
/** A vitest timeout per case: a guarded call that hangs fails here, well before the SDK timeout. */
const CASE_TIMEOUT_MS = 15_000;

/** What reading a stream to its end gave: the chunks, and what it threw, if it did. */
export interface Drained {
  readonly chunks: unknown[];
  readonly error: unknown;
  readonly threw: boolean;
}

/** Reads a stream to its end (or its error), calling `onChunk` after each chunk. */
export async function drain(
  stream: AsyncIterable<unknown>,
  onChunk?: (index: number) => void,
): Promise<Drained> {
  const chunks: unknown[] = [];
  try {
    for await (const chunk of stream) {
      chunks.push(chunk);
      onChunk?.(chunks.length);
    }
    return { chunks, error: undefined, threw: false };
  } catch (error) {
    return { chunks, error, threw: true };
  }
}

/** Passes the source through, recording every chunk it yields (to check the guard's are the same objects). */
function recording(source: AsyncIterable<unknown>, seen: unknown[]): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = source[Symbol.asyncIterator]();
      return {
        async next() {
          const step = await iterator.next();
          if (step.done !== true) seen.push(step.value);
          return step;
        },
        return: iterator.return === undefined ? undefined : (value?: unknown) => iterator.return!(value),
      } as AsyncIterator<unknown>;
    },
  };
}

/** The devDependency names under which a package installs `sdkName` (itself and `npm:` aliases). */
export function installedMajors(packageDir: string, sdkName: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    devDependencies?: Record<string, string>;
  };
  return Object.entries(manifest.devDependencies ?? {})
    .filter(([name, range]) => name === sdkName || range.startsWith(`npm:${sdkName}@`))
    .map(([name]) => name)
    .sort();
}

function resultOf(stream: unknown, method: string): Promise<unknown> {
  const candidate = (stream as Record<string, unknown> | null)?.[method];
  if (typeof candidate !== 'function') {
    throw new Error(`the guarded stream offers no ${method}()`);
  }
  return (candidate as () => Promise<unknown>).call(stream);
}

/** Registers the matrix's suites. */
export function streamMatrix<Sdk extends { readonly alias: string }>(matrix: StreamMatrix<Sdk>): void {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer(matrix.server ?? {});
  });
  afterAll(async () => {
    await server?.close();
  });

  describe(`${matrix.provider} stream matrix`, () => {
    it('covers every installed major of the SDK, and every surface runs on one', () => {
      const aliases = matrix.sdks.map((sdk) => sdk.alias).sort();
      expect(aliases).toEqual(installedMajors(matrix.sdkPackage.packageDir, matrix.sdkPackage.name));
      for (const surface of matrix.surfaces) {
        expect(
          matrix.sdks.some((sdk) => surface.offeredBy?.(sdk) ?? true),
          surface.name,
        ).toBe(true);
      }
    });
  });

  for (const sdk of matrix.sdks) {
    for (const surface of matrix.surfaces) {
      if (surface.offeredBy !== undefined && !surface.offeredBy(sdk)) continue;
      registerSurface(matrix, sdk, surface, () => server);
    }
  }
}

function registerSurface<Sdk extends { readonly alias: string }, E>(
  matrix: StreamMatrix<Sdk>,
  sdk: Sdk,
  surface: StreamSurface<Sdk, E>,
  serverOf: () => LoopbackServer,
): void {
  const { wire } = surface;
  const deliveredFor = (behaviour: StreamBehaviour) => wire.deliveredFor?.[behaviour] ?? wire.delivered;

  const open = async (events: readonly E[], ending: StreamEnding, signal = new AbortController().signal) => {
    const baseUrl = serverOf().baseUrlFor(
      { response: wire.frame(events, ending) },
      surface.pathPrefix === undefined ? {} : { pathPrefix: surface.pathPrefix },
    );
    return surface.open(sdk, baseUrl, { signal, timeoutMs: SDK_TIMEOUT_MS });
  };
  const guarded = async (events: readonly E[], ending: StreamEnding, idleTimeoutMs = IDLE_MS) =>
    drain(matrix.guard(await open(events, ending), { idleTimeoutMs }));

  /** A classified failure: the provider's, with what was delivered before it. */
  const expectClassified = (outcome: Drained, delivered: DeliveredOutput): MatrixReport => {
    expect(outcome.threw, 'the guarded stream ended without an error').toBe(true);
    const report = matrix.reportOf(outcome.error);
    expect(report, `not classified: ${String(outcome.error)}`).toBeDefined();
    expect(report!.provider).toBe(matrix.provider);
    expect(report!.delivered).toEqual(delivered);
    expect(outcome.chunks).toHaveLength(delivered.chunks);
    return report!;
  };
  const expectReason = (report: MatrixReport, reason: FailureReason) => {
    expect(report).toMatchObject({
      reason,
      category: TAXONOMY[reason].category,
      retryable: TAXONOMY[reason].retryable,
    });
  };
  const expectInterrupted = (report: MatrixReport) => {
    expectReason(report, 'interrupted');
    expect(report.providerMetadata.networkPhase).toBe('stream');
  };
  /** The helper's result method rejects with the classification iterating gave. */
  const expectResultRejects = async (
    events: readonly E[],
    ending: StreamEnding,
    reason: string,
    idle = IDLE_MS,
  ) => {
    if (surface.resultMethod === undefined) return;
    const stream = matrix.guard(await open(events, ending), { idleTimeoutMs: idle });
    const error = await resultOf(stream, surface.resultMethod).then(
      (value) => ({ resolved: value }),
      (thrown: unknown) => thrown,
    );
    const report = matrix.reportOf(error);
    expect(report, `${surface.resultMethod}() did not reject classified: ${String(error)}`).toBeDefined();
    expect(report!.reason).toBe(reason);
  };

  // The cases of a surface run side by side: most of their time is the loopback server's pacing and
  // the idle timers, and each case opens its own scenario. The caller's-abort case runs alone: which
  // of the SDK's rejection and the signal's reaches the guard first is what it checks, and other
  // cases' work on the same event loop can reorder the two.
  describe.concurrent(`${matrix.provider} ${sdk.alias} ${surface.name}`, { timeout: CASE_TIMEOUT_MS }, () => {
    it('complete: a healthy stream passes through unchanged (the same chunk objects as unguarded)', async () => {
      const plain = await drain(await open(wire.complete, 'end'));
      expect(plain.threw, String(plain.error)).toBe(false);
      const seen: unknown[] = [];
      const through = await drain(
        matrix.guard(recording(await open(wire.complete, 'end'), seen), { idleTimeoutMs: IDLE_MS }),
      );
      expect(through.threw, String(through.error)).toBe(false);
      expect(through.chunks.length).toBeGreaterThan(0);
      expect(through.chunks).toEqual(plain.chunks);
      expect(through.chunks).toHaveLength(seen.length);
      through.chunks.forEach((chunk, index) => {
        expect(chunk).toBe(seen[index]);
      });
      if (surface.resultMethod !== undefined) {
        const own = await resultOf(await open(wire.complete, 'end'), surface.resultMethod);
        const viaGuard = await resultOf(
          matrix.guard(await open(wire.complete, 'end'), { idleTimeoutMs: IDLE_MS }),
          surface.resultMethod,
        );
        expect(viaGuard).toEqual(own);
      }
    });

    const errorOutcome = wire.errorEvent.bySdk?.[sdk.alias];
    const errorReason = errorOutcome?.reason ?? wire.errorEvent.reason;
    it(`errorAfterChunks: an error event after the first chunks is ${errorReason}`, async () => {
      const events = [...wire.partial, ...wire.errorEvent.events];
      const report = expectClassified(
        await guarded(events, 'end'),
        errorOutcome?.delivered ?? deliveredFor('errorAfterChunks'),
      );
      expectReason(report, errorReason);
      await expectResultRejects(events, 'end', errorReason);
    });

    it('cutMidway: a connection cut mid-way is interrupted, with what was delivered', async () => {
      expectInterrupted(expectClassified(await guarded(wire.partial, 'cut'), deliveredFor('cutMidway')));
      await expectResultRejects(wire.partial, 'cut', 'interrupted');
    });

    it("stall: a stream that stalls after the headers is ended by the guard's idle timer, and its request released", async () => {
      const scenario = { response: wire.frame(wire.partial, 'stall') };
      const baseUrl = serverOf().baseUrlFor(
        scenario,
        surface.pathPrefix === undefined ? {} : { pathPrefix: surface.pathPrefix },
      );
      const controller = new AbortController();
      const source = await surface.open(sdk, baseUrl, {
        signal: controller.signal,
        timeoutMs: SDK_TIMEOUT_MS,
      });
      const outcome = await drain(
        matrix.guard(source, {
          idleTimeoutMs: STALL_IDLE_MS,
          ...(surface.releasesRequest === true ? {} : { onAbandon: () => controller.abort() }),
        }),
      );
      const report = expectClassified(outcome, deliveredFor('stall'));
      expectInterrupted(report);
      expect(report.providerMetadata.origin).toBe('timeout');
      // A stalled request left open is a leaked socket: the server must see the client close it.
      const [request] = serverOf().requests(scenario);
      const deadline = Date.now() + 5_000;
      while (request?.responseClosed !== true && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(request?.responseClosed, 'the stalled request was never closed').toBe(true);
      await expectResultRejects(wire.partial, 'stall', 'interrupted', STALL_IDLE_MS);
    });

    if (surface.acceptsFetch === true) {
      it("stall through a fetch that drops the signal: the idle timer still ends it, with the error the SDK's own fetch gives", async () => {
        const stallOnce = async (fetch: typeof globalThis.fetch | undefined) => {
          const scenario = { response: wire.frame(wire.partial, 'stall') };
          const baseUrl = serverOf().baseUrlFor(
            scenario,
            surface.pathPrefix === undefined ? {} : { pathPrefix: surface.pathPrefix },
          );
          const source = await surface.open(sdk, baseUrl, {
            signal: new AbortController().signal,
            timeoutMs: SDK_TIMEOUT_MS,
            fetch,
          });
          return drain(matrix.guard(source, { idleTimeoutMs: STALL_IDLE_MS }));
        };
        const byDefault = await stallOnce(undefined);
        // An abort cannot end this read (unless the SDK listens itself): the guard must not rely on it.
        const deaf = await stallOnce((input, init) => {
          const { signal: _dropped, ...rest } = init ?? {};
          return globalThis.fetch(input, rest);
        });
        const delivered = deliveredFor('stall');
        const defaultReport = expectClassified(byDefault, delivered);
        const deafReport = expectClassified(deaf, delivered);
        expect(deafReport).toEqual(defaultReport);
        expect(deafReport.providerMetadata.origin).toBe('timeout');
        const [d, b] = [byDefault.error as Error, deaf.error as Error];
        expect(b.constructor).toBe(d.constructor);
        expect([b.name, b.message]).toEqual([d.name, d.message]);
      });
    }

    it('endWithoutTerminal: a stream that ends without its terminal event is interrupted', async () => {
      const report = expectClassified(await guarded(wire.partial, 'end'), deliveredFor('endWithoutTerminal'));
      // The guard's own check (origin network), or the SDK helper's complaint that the events do
      // not add up to an answer (malformed_response): interrupted either way.
      expectInterrupted(report);
      await expectResultRejects(wire.partial, 'end', 'interrupted');
    });

    it.sequential("callerAbort: the caller's abort ends it the caller's way: what the SDK throws, else the signal's reason", async () => {
      // Unguarded first: what does this SDK do when its caller aborts mid-stream? One event, then
      // silence: with a second event already read when the abort comes, the SDK would hand it on
      // (and the guard, by design, throws the signal's reason instead), and whether it had been read
      // depends on the machine's load.
      const first = wire.partial.slice(0, 1);
      const plainController = new AbortController();
      const plain = await drain(await open(first, 'stall', plainController.signal), () =>
        plainController.abort(),
      );
      const controller = new AbortController();
      const source = await open(first, 'stall', controller.signal);
      const outcome = await drain(
        matrix.guard(source, { idleTimeoutMs: CASE_TIMEOUT_MS, signal: controller.signal }),
        () => controller.abort(),
      );
      expect(outcome.threw, 'an aborted stream must not end as if it were complete').toBe(true);
      expect(matrix.reportOf(outcome.error), `classified: ${String(outcome.error)}`).toBeUndefined();
      expect(outcome.chunks).toHaveLength(1);
      if (plain.threw) {
        expect((outcome.error as Error)?.constructor).toBe((plain.error as Error)?.constructor);
        expect((outcome.error as Error)?.name).toBe((plain.error as Error)?.name);
      } else {
        expect(outcome.error).toBe(controller.signal.reason);
      }
      if (surface.resultMethod !== undefined) {
        const resultController = new AbortController();
        const stream = matrix.guard(await open(wire.partial, 'stall', resultController.signal), {
          idleTimeoutMs: CASE_TIMEOUT_MS,
          signal: resultController.signal,
        });
        setTimeout(() => resultController.abort(), 100);
        const error = await resultOf(stream, surface.resultMethod).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error, `${surface.resultMethod}() resolved after an abort`).toBeDefined();
        expect(matrix.reportOf(error)).toBeUndefined();
      }
    });
  });
}
