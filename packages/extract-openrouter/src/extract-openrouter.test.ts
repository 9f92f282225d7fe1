import { classifyError } from '@faultline/render';
import {
  clientTimeoutFor,
  loadScenarios,
  type Scenario,
  stableReport,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { scenarioSuite } from '@faultline/test-fixtures/scenario-suite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openrouterExtractor, readOpenRouterHttpFailure } from './extract-openrouter.ts';
import { callSdk, classifyThrown, SDKS, type Sdk, SECRETS } from './test-support.ts';

// The REAL @openrouter/sdk (1.x and 0.13) against the loopback server, answering with the recorded
// responses in packages/llm-mock/scenarios/openrouter; streams are drained through the guard by the
// driver module, as a user streams. What the SDK really throws is extracted and classified.

type LoopbackServer = Awaited<ReturnType<typeof startLoopbackServer>>;
const scenarios = loadScenarios('openrouter');

/** Runs the scenario's call through the real SDK and returns what it threw. */
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

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

scenarioSuite({
  provider: 'openrouter',
  sdks: SDKS,
  aliasOf: (sdk) => sdk.alias,
  server: { protocol: 'http1' },
  minimum: 30,
  demoLabels: [
    'bad gateway',
    'bad key',
    'context overflow',
    'DNS failure',
    'overload',
    'quota',
    'rate limit',
    'refused connection',
    'stream cut',
    'timeout',
    'unknown model',
  ],
  // A raw transport error (a cut stream's TypeError) is left to render's built-in readers.
  builtInsRead: true,
  reportOf: (thrown, scenario) =>
    stableReport(
      classifyError(thrown, {
        extractors: [openrouterExtractor],
        streaming: scenario.stream === true,
      }).toErrorReport(),
    ),
  async read(sdk, scenario, on) {
    const thrown = await thrownBy(sdk, scenario, on.baseUrlFor(scenario));
    return { ...classifyThrown(thrown, { streaming: scenario.stream === true }), thrown };
  },
  check({ scenario, metadata, thrown }) {
    // Every answered failure is the SDK's error, read by this package's extractor, not a built-in.
    if (scenario.response.kind === 'http') {
      expect(
        openrouterExtractor.extract(thrown),
        `openrouterExtractor must read ${scenario.id}`,
      ).toBeDefined();
    }
    const serialised = JSON.stringify(metadata);
    for (const secret of SECRETS) expect(serialised).not.toContain(secret);
    // flagged_input is prompt text: never copied.
    expect(serialised).not.toContain('FLAGGED-PROMPT-TEXT-canary');
    expect(serialised).not.toContain('user_0000');
  },
});

function scenario(name: string): Scenario {
  const found = scenarios.find((candidate) => candidate.id === `openrouter/${name}`);
  if (found === undefined) throw new Error(`no scenario openrouter/${name}`);
  return found;
}

async function thrown(name: string, sdk: Sdk = SDKS[0]!): Promise<unknown> {
  const chosen = scenario(name);
  return thrownBy(sdk, chosen, server.baseUrlFor(chosen));
}

describe('openrouterExtractor: what @openrouter/sdk throws, read', () => {
  it("appends the upstream's own words in metadata.raw to OpenRouter's, with its code", async () => {
    for (const sdk of SDKS) {
      const error = await thrown('provider-error-raw-json-400', sdk);
      expect((error as Error).name).toBe('BadRequestResponseError');
      expect(openrouterExtractor.extract(error)).toMatchObject({
        provider: 'openrouter',
        sdkErrorType: 'OpenRouterError',
        message:
          "Provider returned error (Crucible: Model 'moonshotai/kimi-k2.6' supports at most 1 image per prompt.)",
        origin: 'http',
        statusCode: 400,
        providerCode: 'invalid_request_error',
        providerType: 'invalid_request_error',
      });
    }
  });

  it('reads a moderation refusal by its reasons, never copying the flagged input', async () => {
    const metadata = openrouterExtractor.extract(await thrown('moderation-flagged-403'))!;
    expect(metadata).toMatchObject({
      statusCode: 403,
      blockReason: 'moderation: harassment/threatening',
      providerType: 'moderation',
    });
    expect(JSON.stringify(metadata)).not.toContain('FLAGGED-PROMPT');
  });

  it("describes an HTML page by its title (the SDK's OpenRouterDefaultError for a status it has no class for)", async () => {
    const error = await thrown('html-not-found-404');
    expect(openrouterExtractor.extract(error)).toMatchObject({
      message: '404: This page could not be found.',
      statusCode: 404,
    });
  });

  it("reads an error chunk's code as the upstream status, and an unparsable error event as words lost", async () => {
    for (const sdk of SDKS) {
      const chunkError = classifyThrown(await thrown('stream-error-chunk-502', sdk), { streaming: true });
      expect(chunkError.metadata).toMatchObject({
        origin: 'stream_event',
        statusCode: 502,
        message: 'Provider disconnected unexpectedly',
        providerType: 'provider_unavailable',
      });
      // The guard threw a FaultlineError; its cause is what the SDK threw.
      const unparsed = (await thrown('stream-error-chunk-unparsed', sdk)) as { cause?: unknown };
      expect((unparsed.cause as Error).name).toBe('ZodError');
      expect(openrouterExtractor.extract(unparsed.cause, { streaming: true })).toMatchObject({
        sdkErrorType: 'ZodError',
        origin: 'malformed_response',
        sdkCondition: 'stream_incomplete',
      });
    }
  });

  it("reads the SDK's ConnectionError by its transport cause", async () => {
    for (const sdk of SDKS) {
      const error = await thrown('connection-refused', sdk);
      expect((error as Error).name).toBe('ConnectionError');
      expect(openrouterExtractor.extract(error)).toMatchObject({
        origin: 'network',
        networkCode: 'ECONNREFUSED',
      });
    }
  });
});

describe('readOpenRouterHttpFailure', () => {
  it('reads an error event sent inside a 200 stream (no status) by its code and words', () => {
    const metadata = readOpenRouterHttpFailure({
      status: undefined,
      body: JSON.stringify({
        error: {
          code: 429,
          message: 'Provider returned error',
          metadata: { raw: 'error code: 1015', provider_name: 'Kluster' },
        },
      }),
    });
    expect(metadata).toMatchObject({
      origin: 'stream_event',
      statusCode: 429,
      message: 'Provider returned error (Kluster: error code: 1015)',
    });
  });
});
