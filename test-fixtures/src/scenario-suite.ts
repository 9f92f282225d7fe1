import * as v from 'valibot';
/**
 * The scenario suite: for one provider, every recorded scenario of its folder × every supported
 * SDK major, played by the loopback server, read through the real SDK and the provider's
 * extractor, and checked against the scenario's expectation (and `TAXONOMY` through it). Also
 * checks the folder itself: enough scenarios, every reason covered or ruled out by
 * `_coverage.json`, the demo's labels present.
 *
 * A provider says how to run a scenario through its SDK and what its adapter makes of the
 * outcome; what every adapter must get right is written here once. Import it from tests only
 * (`@faultline/test-fixtures/scenario-suite`): it registers vitest suites.
 */

import {
  type Classification,
  classify,
  type Extractor,
  FailureReason,
  ProviderErrorMetadata,
} from '@faultline/classify';
import {
  expectedFor,
  type LoopbackServer,
  type LoopbackServerOptions,
  loadProviderCoverage,
  loadScenarios,
  type ResolvedExpectation,
  type Scenario,
  startLoopbackServer,
} from '@faultline/llm-mock';
import { classifyError } from '@faultline/render';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stableReport } from './index.ts';

/** What the adapter made of one scenario's outcome. */
export interface ScenarioReading {
  /** The metadata the adapter read (from the thrown error, or from a resolved answer it inspected). */
  readonly metadata: ProviderErrorMetadata | undefined;
  /** The classification, when the reading went through the whole pipeline; else classify(metadata). */
  readonly classification?: Classification | undefined;
  /** What the SDK threw (absent when the call resolved), for `reportOf` and the provider's own checks. */
  readonly thrown?: unknown;
}

/** One scenario, read, with what it was checked against: for a provider's own checks. */
export interface ScenarioCase<Sdk> {
  readonly sdk: Sdk;
  readonly alias: string;
  readonly scenario: Scenario;
  readonly expected: ResolvedExpectation;
  readonly metadata: ProviderErrorMetadata;
  readonly classification: Classification;
  readonly thrown: unknown;
}

export interface ScenarioSuiteOptions<Sdk> {
  /** The provider key: its scenario folder, and what `metadata.provider` must say. */
  readonly provider: string;
  /** Every supported SDK major. */
  readonly sdks: readonly Sdk[];
  /** The SDK's devDependency alias (the key of a scenario's `expectedBySdk`). */
  readonly aliasOf: (sdk: Sdk) => string;
  /** Runs the scenario through the real SDK against `server` and reads the outcome with the adapter. */
  readonly read: (sdk: Sdk, scenario: Scenario, server: LoopbackServer) => Promise<ScenarioReading>;
  /** Options of the loopback server this suite starts (e.g. `{ protocol: 'h2c' }`). */
  readonly server?: LoopbackServerOptions | undefined;
  /** The fewest scenarios the folder may hold. */
  readonly minimum: number;
  /** The demo labels (`scenario.demo`) the folder must have. */
  readonly demoLabels?: readonly string[] | undefined;
  /** The APIs (`scenario.api`) the folder must cover, exactly. */
  readonly apis?: readonly string[] | undefined;
  /** Run each major's scenarios concurrently (the default), or one after another. */
  readonly concurrent?: boolean | undefined;
  /**
   * The reading is the whole pipeline (the adapter, then render's built-in readers), which leaves a
   * raw transport error to the built-ins (their metadata names the runtime, not the provider): the
   * provider is then checked by `check` on what the adapter claimed, not here.
   */
  readonly builtInsRead?: boolean | undefined;
  /**
   * The report pinned for a scenario the SDK threw on (`toMatchSnapshot`, recorded with
   * `pnpm record:error-reports`), e.g. `stableReport(classifyError(thrown, { extractors }).toErrorReport())`.
   */
  readonly reportOf?: ((thrown: unknown, scenario: Scenario) => unknown) | undefined;
  /** The provider's own checks of one scenario, after the shared ones. */
  readonly check?: ((read: ScenarioCase<Sdk>) => void) | undefined;
}

/** Registers the provider's scenario suite. */
export function scenarioSuite<Sdk>(options: ScenarioSuiteOptions<Sdk>): void {
  const { provider } = options;
  const scenarios = loadScenarios(provider);
  let server: LoopbackServer | undefined;

  describe(`${provider} scenarios`, () => {
    beforeAll(async () => {
      server = await startLoopbackServer(options.server);
    });
    afterAll(async () => {
      await server?.close();
    });

    it(`has at least ${options.minimum} scenarios, one for every reason _coverage.json does not rule out`, () => {
      expect(scenarios.length).toBeGreaterThanOrEqual(options.minimum);
      const ruledOut = new Set(Object.keys(loadProviderCoverage(provider)?.cannotHappen ?? {}));
      const covered = new Set(scenarios.map((scenario) => scenario.expected.reason));
      for (const reason of FailureReason.options) {
        expect(covered.has(reason) || ruledOut.has(reason), `no scenario for ${reason}`).toBe(true);
      }
      if (options.apis !== undefined) {
        expect(new Set(scenarios.map((scenario) => scenario.api))).toEqual(new Set(options.apis));
      }
      const labels = new Set(scenarios.map((scenario) => scenario.demo).filter(Boolean));
      for (const label of options.demoLabels ?? [])
        expect(labels.has(label), `demo label ${label}`).toBe(true);
    });

    for (const sdk of options.sdks) {
      const alias = options.aliasOf(sdk);
      describe(`real ${alias} against the loopback server`, () => {
        for (const scenario of scenarios) {
          const expected = expectedFor(scenario, alias);
          const test =
            expected.skip !== undefined ? it.skip : options.concurrent === false ? it : it.concurrent;
          test(scenario.id, async ({ expect: local }) => {
            if (server === undefined) throw new Error('the loopback server did not start');
            const reading = await options.read(sdk, scenario, server);
            // A snapshot in a concurrent test needs the test's own expect.
            if (options.reportOf !== undefined && 'thrown' in reading) {
              local(options.reportOf(reading.thrown, scenario)).toMatchSnapshot();
            }
            const { metadata } = reading;
            expect(metadata, `the adapter read nothing from ${scenario.id}`).toBeDefined();
            if (metadata === undefined) return;
            const detail = JSON.stringify(metadata);
            expect(v.is(ProviderErrorMetadata, metadata), detail).toBe(true);
            if (options.builtInsRead !== true) expect(metadata.provider, detail).toBe(provider);
            const classification = reading.classification ?? classify(metadata);
            expect(
              {
                category: classification.category,
                reason: classification.reason,
                retryable: classification.retryable,
                userAction: classification.userAction.kind,
                httpStatus: classification.httpStatus,
              },
              detail,
            ).toEqual({
              category: expected.category,
              reason: expected.reason,
              retryable: expected.retryable,
              userAction: expected.userAction,
              httpStatus: expected.httpStatus,
            });
            if (expected.retryAfterSeconds !== undefined) {
              expect(classification.retryAfterSeconds, detail).toBeCloseTo(expected.retryAfterSeconds, 1);
            }
            if (expected.statusCode !== undefined)
              expect(metadata.statusCode, detail).toBe(expected.statusCode);
            if (expected.providerCode !== undefined) {
              expect(metadata.providerCode, detail).toBe(expected.providerCode);
            }
            // The raw body is kept in memory only: never a serialised key, never copied into a field.
            expect(Object.keys(metadata)).not.toContain('rawBody');
            if (scenario.response.kind === 'http' && scenario.response.body.trim().length > 40) {
              const body = scenario.response.body;
              expect(detail).not.toContain(JSON.stringify(body).slice(1, -1));
              expect(metadata.message).not.toContain(body.trim());
            }
            options.check?.({
              sdk,
              alias,
              scenario,
              expected,
              metadata,
              classification,
              thrown: reading.thrown,
            });
          });
        }
      });
    }
  });
}

export interface AdapterScenarioSuiteOptions<Sdk extends { readonly alias: string }>
  extends Omit<ScenarioSuiteOptions<Sdk>, 'aliasOf' | 'read' | 'builtInsRead' | 'reportOf' | 'check'> {
  /** The adapter's extractor, run before render's built-in readers. */
  readonly extractor: Extractor;
  /** Runs the real SDK call the scenario describes at `baseUrl` (a stream drained) and returns what it threw. */
  readonly run: (sdk: Sdk, baseUrl: string, scenario: Scenario) => Promise<unknown>;
  /** The scenarios the adapter's own extractor must read (answered failures, its stream's error lines …). */
  readonly claims: (scenario: Scenario) => boolean;
  /** Canaries (the prompt, the key) that no metadata may hold. */
  readonly secrets: readonly string[];
  /** A scenario whose SDK error the extractor must leave as it found it. */
  readonly untouched: string;
}

/** What a provider's own tests use: a scenario of its folder by name, and what its SDK threw for it. */
export interface AdapterScenarios<Sdk> {
  scenario(name: string): Scenario;
  thrownBy(name: string, sdk?: Sdk): Promise<unknown>;
  /** The loopback server's address for a scenario, for a test that calls the SDK itself. */
  baseUrlFor(scenario: Scenario): string;
}

/**
 * The scenario suite of an adapter read through the whole pipeline (its extractor, then render's
 * built-in readers), with what every adapter's scenario test checks: the report pinned per scenario,
 * the adapter's own reading equal to the pipeline's wherever it claims the error and present
 * wherever it must, no canary and no whole HTML page in the metadata, and the SDK's error never
 * mutated. Returns the provider's scenarios by name, for its own tests.
 */
export function adapterScenarioSuite<Sdk extends { readonly alias: string }>(
  options: AdapterScenarioSuiteOptions<Sdk>,
): AdapterScenarios<Sdk> {
  const { provider, extractor, run } = options;
  const extractorName = `${provider}Extractor`;
  const read = (thrown: unknown, scenario: Scenario) =>
    classifyError(thrown, { extractors: [extractor], streaming: scenario.stream === true });

  scenarioSuite({
    ...options,
    aliasOf: (sdk) => sdk.alias,
    builtInsRead: true,
    reportOf: (thrown, scenario) => stableReport(read(thrown, scenario).toErrorReport()),
    async read(sdk, scenario, on) {
      const thrown = await run(sdk, on.baseUrlFor(scenario), scenario);
      const { metadata, classification } = read(thrown, scenario);
      return { metadata, classification, thrown };
    },
    check({ scenario, metadata, thrown }) {
      const own = extractor.extract(thrown);
      if (own !== undefined) {
        expect(own.provider).toBe(provider);
        expect(metadata).toEqual(own);
      }
      if (options.claims(scenario)) {
        expect(own, `${extractorName} must claim ${scenario.id}`).toBeDefined();
      }
      const serialised = JSON.stringify(metadata);
      for (const secret of options.secrets) expect(serialised).not.toContain(secret);
      if (scenario.response.kind === 'http' && scenario.response.body.trim().startsWith('<')) {
        expect(metadata.message).not.toContain(scenario.response.body.trim());
      }
    },
  });

  const scenarios = loadScenarios(provider);
  let server: LoopbackServer | undefined;
  beforeAll(async () => {
    server = await startLoopbackServer(options.server);
  });
  afterAll(async () => {
    await server?.close();
  });
  const found: AdapterScenarios<Sdk> = {
    scenario(name) {
      const chosen = scenarios.find((candidate) => candidate.id === `${provider}/${name}`);
      if (chosen === undefined) throw new Error(`no scenario ${provider}/${name}`);
      return chosen;
    },
    thrownBy(name, sdk = options.sdks[0]) {
      const chosen = found.scenario(name);
      if (sdk === undefined) throw new Error(`no SDK of ${provider}`);
      return run(sdk, found.baseUrlFor(chosen), chosen);
    },
    baseUrlFor(scenario) {
      if (server === undefined) throw new Error('the loopback server did not start');
      return server.baseUrlFor(scenario);
    },
  };

  describe(`${extractorName}: the SDK's error is left as it was`, () => {
    it('never mutates the SDK error', async () => {
      const thrown = (await found.thrownBy(options.untouched)) as Record<string, unknown>;
      const before = JSON.stringify(thrown);
      const keys = Reflect.ownKeys(thrown);
      const snapshot = keys.map((key) => [key, thrown[key as string]]);
      extractor.extract(thrown);
      expect(Reflect.ownKeys(thrown)).toEqual(keys);
      expect(keys.map((key) => [key, thrown[key as string]])).toEqual(snapshot);
      expect(JSON.stringify(thrown)).toBe(before);
    });
  });
  return found;
}
