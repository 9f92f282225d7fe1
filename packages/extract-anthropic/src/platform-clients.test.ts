import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { startMockProvider } from '@faultline/llm-mock';
import { classifyError } from '@faultline/render';
import {
  clientTimeoutFor,
  expectedFor,
  type LoopbackServer,
  loadScenarios,
  stableReport,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { GoogleAuth, OAuth2Client } from 'google-auth-library';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AWS_CREDENTIALS,
  BEDROCK_MODEL,
  PLATFORMS,
  VERTEX_ACCESS_TOKEN,
  VERTEX_MODEL,
  vertexAuthClient,
} from '../test/platform-support.ts';
import { anthropicExtractor } from './extract-anthropic.ts';
import { withClassifiedErrors } from './index.ts';

// Claude through AnthropicVertex and AnthropicBedrock, the real clients against the loopback
// server: the failures recorded in test/platform-scenarios (the platform's own envelopes, its
// URL shapes, Bedrock's event stream), and the ones each client raises before any request.

/** A Messages request as a user of either client writes it (the model is the platform's id). */
const REQUEST = { max_tokens: 64, messages: [{ role: 'user' as const, content: 'Say hello.' }] };

const directory = fileURLToPath(new URL('../test/platform-scenarios', import.meta.url));
const CANARIES = [VERTEX_ACCESS_TOKEN, AWS_CREDENTIALS.awsAccessKey, AWS_CREDENTIALS.awsSecretKey];

/** The path each client calls, after the loopback prefix. */
const URL_SHAPES: Readonly<Record<string, (stream: boolean) => RegExp>> = {
  'anthropic-vertex': (stream) =>
    new RegExp(
      `^/v1/projects/faultline-test/locations/us-east5/publishers/anthropic/models/[^/]+:${stream ? 'streamRawPredict' : 'rawPredict'}$`,
    ),
  'anthropic-bedrock': (stream) =>
    new RegExp(`^/model/[^/]+/${stream ? 'invoke-with-response-stream' : 'invoke'}$`),
};

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});
/** The empty homes made for the credential chains, removed after each test. */
const homes: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

async function thrownBy(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('the call resolved');
}

for (const platform of PLATFORMS) {
  describe(`${platform.alias}: recorded failures`, () => {
    const scenarios = loadScenarios(platform.folder, { directory });
    it('has its recordings', () => {
      expect(scenarios.length).toBeGreaterThanOrEqual(6);
    });
    for (const scenario of scenarios) {
      it(scenario.id, async () => {
        const client = platform.clientFor(server.baseUrlFor(scenario), clientTimeoutFor(scenario));
        const request = { ...REQUEST, model: platform.model };
        const streaming = scenario.stream === true;
        const thrown = await thrownBy(async () => {
          if (!streaming) return client.messages.create(request);
          const stream = (await client.messages.create({
            ...request,
            stream: true,
          })) as AsyncIterable<unknown>;
          for await (const _event of stream) {
            // drained: the stream throws what it failed with
          }
        });
        const [sent] = server.requests(scenario);
        expect(sent?.subPath.split('?')[0]).toMatch(URL_SHAPES[platform.folder]!(streaming));

        // What a user's pipeline makes of it: the adapter, then render's built-in readers.
        const report = classifyError(thrown, { extractors: [anthropicExtractor], streaming }).toErrorReport();
        const expected = expectedFor(scenario);
        expect({
          category: report.category,
          reason: report.reason,
          retryable: report.retryable,
          userAction: report.userAction.kind,
          httpStatus: report.httpStatus,
        }).toEqual({
          category: expected.category,
          reason: expected.reason,
          retryable: expected.retryable,
          userAction: expected.userAction,
          httpStatus: expected.httpStatus,
        });
        if (expected.statusCode !== undefined) {
          expect(report.providerMetadata.statusCode).toBe(expected.statusCode);
        }
        const serialised = JSON.stringify(report);
        for (const canary of CANARIES) expect(serialised).not.toContain(canary);
        expect(stableReport(report)).toMatchSnapshot();
      });
    }
  });
}

/** A base URL whose every request would be recorded: none may arrive for a failure before sending. */
function unusedBaseUrl(): {
  baseUrl: string;
  scenario: { response: { kind: 'http'; status: 500; body: '' } };
} {
  const scenario = { response: { kind: 'http' as const, status: 500 as const, body: '' as const } };
  return { baseUrl: server.baseUrlFor(scenario), scenario };
}

/** Environment that leaves Google's and AWS's default credential chains nothing to find, without a network lookup. */
function stubEmptyCredentialEnvironment(): void {
  const home = mkdtempSync(join(tmpdir(), 'faultline-platform-'));
  homes.push(home);
  vi.stubEnv('HOME', home);
  vi.stubEnv('CLOUDSDK_CONFIG', home);
  vi.stubEnv('GOOGLE_APPLICATION_CREDENTIALS', '');
  // gcp-metadata: no probe of the metadata server (it would leave 127.0.0.1).
  vi.stubEnv('METADATA_SERVER_DETECTION', 'none');
  vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
  vi.stubEnv('AWS_CONFIG_FILE', join(home, 'aws-config'));
  vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join(home, 'aws-credentials'));
  for (const name of [
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_PROFILE',
    'AWS_BEARER_TOKEN_BEDROCK',
    'AWS_WEB_IDENTITY_TOKEN_FILE',
    'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
    'AWS_CONTAINER_CREDENTIALS_FULL_URI',
    'CLOUD_ML_REGION',
    'ANTHROPIC_VERTEX_PROJECT_ID',
  ]) {
    vi.stubEnv(name, undefined);
  }
}

describe('failures each client raises before sending anything', () => {
  it('AnthropicVertex without a region is a configuration to fix (endpoint)', async () => {
    stubEmptyCredentialEnvironment();
    const { baseUrl, scenario } = unusedBaseUrl();
    const error = await thrownBy(() =>
      withClassifiedErrors(
        () =>
          new AnthropicVertex({
            projectId: 'faultline-test',
            baseURL: baseUrl,
            authClient: vertexAuthClient(),
          }).messages.create({ ...REQUEST, model: VERTEX_MODEL }),
        { retry: false },
      ),
    );
    const report = classifyError(error).toErrorReport();
    expect(report).toMatchObject({ reason: 'endpoint', retryable: false, provider: 'anthropic' });
    expect(report.userAction.kind).toBe('check_configuration');
    expect(server.requests(scenario)).toHaveLength(0);
  });

  it('AnthropicVertex without a project is a configuration to fix (endpoint)', async () => {
    stubEmptyCredentialEnvironment();
    const { baseUrl, scenario } = unusedBaseUrl();
    const client = new AnthropicVertex({
      region: 'us-east5',
      baseURL: baseUrl,
      authClient: vertexAuthClient(),
      maxRetries: 0,
    });
    const error = await thrownBy(() =>
      withClassifiedErrors(() => client.messages.create({ ...REQUEST, model: VERTEX_MODEL }), {
        retry: false,
      }),
    );
    expect(classifyError(error).toErrorReport()).toMatchObject({ reason: 'endpoint', retryable: false });
    expect(server.requests(scenario)).toHaveLength(0);
  });

  it('AnthropicVertex without Application Default Credentials is auth, not a connection to retry', async () => {
    stubEmptyCredentialEnvironment();
    const { baseUrl, scenario } = unusedBaseUrl();
    const client = new AnthropicVertex({
      region: 'us-east5',
      projectId: 'faultline-test',
      baseURL: baseUrl,
      googleAuth: new GoogleAuth({ scopes: 'https://www.googleapis.com/auth/cloud-platform' }),
      maxRetries: 0,
    });
    const error = await thrownBy(() => client.messages.create({ ...REQUEST, model: VERTEX_MODEL }));
    // The SDK files it as APIConnectionError("Failed to acquire Google OAuth credentials.").
    expect((error as Error).constructor.name).toBe('APIConnectionError');
    const report = classifyError(error, { extractors: [anthropicExtractor] }).toErrorReport();
    expect(report).toMatchObject({ reason: 'auth', retryable: false });
    expect(report.userAction.kind).toBe('check_credentials');
    expect(report.message).toContain('Could not load the default credentials');
    expect(server.requests(scenario)).toHaveLength(0);
  });

  it('AnthropicVertex whose refresh token the token endpoint refuses (invalid_grant) is auth', async () => {
    const grant = {
      response: {
        kind: 'http' as const,
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          error: 'invalid_grant',
          error_description: 'Token has been expired or revoked.',
        }),
      },
    };
    const authClient = new OAuth2Client({
      clientId: 'faultline-client.apps.googleusercontent.com',
      clientSecret: 'faultline-canary-client-secret',
      endpoints: { oauth2TokenUrl: `${server.baseUrlFor(grant)}/token` },
    });
    authClient.setCredentials({ refresh_token: '1//faultlineCanaryRefreshToken' });
    const { baseUrl, scenario } = unusedBaseUrl();
    const client = new AnthropicVertex({
      region: 'us-east5',
      projectId: 'faultline-test',
      baseURL: baseUrl,
      authClient,
      maxRetries: 0,
    });
    const error = await thrownBy(() => client.messages.create({ ...REQUEST, model: VERTEX_MODEL }));
    const report = classifyError(error, { extractors: [anthropicExtractor] }).toErrorReport();
    expect(report).toMatchObject({ reason: 'auth', retryable: false });
    expect(report.message).toContain('invalid_grant: Token has been expired or revoked.');
    expect(JSON.stringify(report)).not.toContain('faultlineCanaryRefreshToken');
    expect(server.requests(grant)).toHaveLength(1);
    expect(server.requests(scenario)).toHaveLength(0);
  });

  it('AnthropicBedrock with no AWS credentials anywhere is auth, not a connection to retry', async () => {
    stubEmptyCredentialEnvironment();
    const { baseUrl, scenario } = unusedBaseUrl();
    const client = new AnthropicBedrock({ awsRegion: 'us-east-1', baseURL: baseUrl, maxRetries: 0 });
    const error = await thrownBy(() => client.messages.create({ ...REQUEST, model: BEDROCK_MODEL }));
    expect((error as Error).constructor.name).toBe('APIConnectionError');
    const report = classifyError(error, { extractors: [anthropicExtractor] }).toErrorReport();
    expect(report).toMatchObject({ reason: 'auth', retryable: false });
    expect(report.message).toContain('Could not load credentials from any providers');
    expect(server.requests(scenario)).toHaveLength(0);
  });

  it('AnthropicBedrock whose awsRegion was cleared is a configuration to fix (endpoint)', async () => {
    const { baseUrl, scenario } = unusedBaseUrl();
    const client = new AnthropicBedrock({
      ...AWS_CREDENTIALS,
      awsRegion: '',
      baseURL: baseUrl,
      maxRetries: 0,
    });
    const error = await thrownBy(() =>
      withClassifiedErrors(() => client.messages.create({ ...REQUEST, model: BEDROCK_MODEL }), {
        retry: false,
      }),
    );
    expect(classifyError(error).toErrorReport()).toMatchObject({ reason: 'endpoint', retryable: false });
    expect(server.requests(scenario)).toHaveLength(0);
  });

  it('a metadata server that refuses the connection stays a connection failure', async () => {
    const refused = { response: { kind: 'socket' as const, behaviour: 'refuse' as const } };
    const authClient = new OAuth2Client({
      clientId: 'faultline-client.apps.googleusercontent.com',
      clientSecret: 'faultline-canary-client-secret',
      endpoints: { oauth2TokenUrl: `${server.baseUrlFor(refused)}/token` },
    });
    authClient.setCredentials({ refresh_token: '1//faultlineCanaryRefreshToken' });
    const { baseUrl } = unusedBaseUrl();
    const client = new AnthropicVertex({
      region: 'us-east5',
      projectId: 'faultline-test',
      baseURL: baseUrl,
      authClient,
      maxRetries: 0,
    });
    const error = await thrownBy(() => client.messages.create({ ...REQUEST, model: VERTEX_MODEL }));
    const report = classifyError(error, { extractors: [anthropicExtractor] }).toErrorReport();
    expect(report.reason).toBe('connection');
  });
});

describe('llm-mock answers both clients at their URL shapes', () => {
  it('AnthropicVertex (rawPredict, streamRawPredict) and AnthropicBedrock (invoke, invoke-with-response-stream)', async () => {
    const mock = await startMockProvider({ providers: ['anthropic', 'bedrock'] });
    try {
      const vertex = PLATFORMS[0].clientFor(mock.url('anthropic'));
      const bedrock = PLATFORMS[1].clientFor(mock.url('bedrock'));
      for (const [client, model] of [
        [vertex, VERTEX_MODEL],
        [bedrock, BEDROCK_MODEL],
      ] as const) {
        const answer = (await client.messages.create({ ...REQUEST, model })) as {
          content: { text: string }[];
        };
        expect(answer.content[0]?.text).toBe('Hello from llm-mock.');
        const stream = client.messages.stream({ ...REQUEST, model });
        expect(await stream.finalText()).toBe('Hello from llm-mock.');
      }
      mock.script('anthropic', [{ kind: 'status', status: 429 }]);
      const error = await thrownBy(() => vertex.messages.create({ ...REQUEST, model: VERTEX_MODEL }));
      expect(classifyError(error, { extractors: [anthropicExtractor] }).toErrorReport().reason).toBe(
        'rate_limit',
      );
    } finally {
      await mock.close();
    }
  });
});
