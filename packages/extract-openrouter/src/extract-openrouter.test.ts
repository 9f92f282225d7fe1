import { clientTimeoutFor, type Scenario } from '@faultline/test-fixtures';
import { scenarioSuite } from '@faultline/test-fixtures/scenario-suite';
import { expect } from 'vitest';
import { openrouterExtractor } from './extract-openrouter.ts';
import { callSdk, classifyThrown, SDKS, type Sdk } from './test-support.ts';

// The standard: the REAL @openrouter/sdk (each major in SDKS) against the loopback server, answering with
// the recorded responses in packages/llm-mock/scenarios/openrouter; what the SDK really throws is
// extracted and classified, and checked against each scenario's expectation. No imitation errors.
// Once the extractor reads the SDK's errors, pin each whole report too (`reportOf`, as
// extract-groq's test does) and record it with `vitest run --update`.

/** Runs the scenario's call through the real SDK (a stream drained through the driver) and returns what it threw. */
async function thrownBy(sdk: Sdk, scenario: Scenario, baseUrl: string): Promise<unknown> {
  try {
    await callSdk(sdk, baseUrl, {
      api: scenario.api,
      stream: scenario.stream,
      timeoutMs: clientTimeoutFor(scenario),
    });
  } catch (error) {
    return error;
  }
  throw new Error(`scenario ${scenario.id} did not throw`);
}

scenarioSuite({
  provider: 'openrouter',
  sdks: SDKS,
  aliasOf: (sdk) => sdk.alias,
  server: { protocol: 'http1' },
  minimum: 1,
  // A raw transport error is left to render's built-in readers, as a user's call would be.
  builtInsRead: true,
  async read(sdk, scenario, on) {
    const thrown = await thrownBy(sdk, scenario, on.baseUrlFor(scenario));
    return { ...classifyThrown(thrown, { streaming: scenario.stream === true }), thrown };
  },
  check({ scenario, thrown }) {
    // Every answered failure is the SDK's error, read by this package's extractor, not a built-in.
    if (scenario.response.kind === 'http') {
      expect(
        openrouterExtractor.extract(thrown),
        `openrouterExtractor must read ${scenario.id}`,
      ).toBeDefined();
    }
  },
});
