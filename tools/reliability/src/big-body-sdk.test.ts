import { FaultlineError, problemDetails, toDict, toErrorReport } from '@faultline/render';
import {
  callProvider,
  DRIVEN_PROVIDERS,
  type ScenarioServers,
  startScenarioServers,
} from '@faultline/scenario-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adHocScenario } from './ad-hoc-scenario.ts';
import { bounded } from './bounded.ts';
import { BOUND_WRAPPERS, EXTRACTORS } from './entry-points.ts';
import { bigText } from './hostile-corpus.ts';

/** Nothing faultline writes about the failure may be larger than this: the body is cut first. */
const OUTPUT_LIMIT = 64 * 1024;

describe('real SDK errors carrying a 50 MB body (bigBody(50) served as a 500)', () => {
  let servers: ScenarioServers;
  beforeAll(async () => {
    servers = await startScenarioServers();
  });
  afterAll(async () => {
    await servers.close();
  });

  it.each(DRIVEN_PROVIDERS.map((provider) => [provider]))(
    '%s: the SDK error is classified as a transient server error, without hanging, with small output',
    async (provider) => {
      const scenario = adHocScenario(provider, {
        kind: 'http',
        status: 500,
        headers: { 'content-type': 'application/json', 'x-request-id': 'req_big_body' },
        body: bigText(),
      });
      let sdkError: unknown;
      try {
        await callProvider(scenario, servers.baseUrlFor(scenario), { timeoutMs: 60_000 });
      } catch (thrown) {
        sdkError = thrown;
      }
      expect(sdkError, 'the SDK must throw on a 500').toBeDefined();

      // Classifying, reporting and rendering is what must stay bounded (the SDK read the body).
      const outcome = await bounded(async () => {
        const metadata = EXTRACTORS[provider]!.extract(sdkError);
        let classified: unknown;
        try {
          await BOUND_WRAPPERS[provider]!(async () => {
            throw sdkError;
          });
        } catch (thrown) {
          classified = thrown;
        }
        const report = toErrorReport(classified);
        const outputs = [
          JSON.stringify(report),
          JSON.stringify(toDict(classified as Error)),
          JSON.stringify(problemDetails(report)),
        ];
        return { metadata, classified, report, outputs };
      });
      expect(outcome.hung, 'classifying the 50 MB failure must not hang').toBe(false);
      expect(outcome.error).toBeUndefined();
      const { metadata, classified, report, outputs } = outcome.value!;

      expect(metadata, `${provider}'s extractor must claim its SDK's error`).toBeDefined();
      expect(FaultlineError.isInstance(classified)).toBe(true);
      expect(report).toMatchObject({ category: 'transient', retryable: true, provider });
      expect(report.providerMetadata.statusCode).toBe(500);
      for (const output of outputs) expect(output.length).toBeLessThan(OUTPUT_LIMIT);
    },
    120_000,
  );
});
