/**
 * Test support: drives the REAL @google/genai SDKs (3.x, 2.x, 1.x through npm aliases) against
 * the faultline loopback server. Not part of the package (only `src/index.ts` is built).
 */
import { createRequire } from 'node:module';
import { clientTimeoutFor, type LoopbackServer, type Scenario } from '@faultline/test-fixtures';
import * as genaiV3 from '@google/genai';
import * as genaiV1 from 'genai-v1';
import * as genaiV2 from 'genai-v2';

export interface GenaiSdk {
  /** The devDependency alias, as used in `expectedBySdk`. */
  readonly alias: '@google/genai' | 'genai-v2' | 'genai-v1';
  readonly GoogleGenAI: new (options: any) => any;
  /** google-auth-library as this SDK copy resolves it (its own dependency). */
  readonly authLibrary: { OAuth2Client: new () => { setCredentials(credentials: object): void } };
}

const require = createRequire(import.meta.url);

function authLibraryFor(alias: string): GenaiSdk['authLibrary'] {
  return createRequire(require.resolve(alias))('google-auth-library');
}

export const SDKS: readonly GenaiSdk[] = [
  { alias: '@google/genai', GoogleGenAI: genaiV3.GoogleGenAI, authLibrary: authLibraryFor('@google/genai') },
  { alias: 'genai-v2', GoogleGenAI: genaiV2.GoogleGenAI, authLibrary: authLibraryFor('genai-v2') },
  { alias: 'genai-v1', GoogleGenAI: genaiV1.GoogleGenAI, authLibrary: authLibraryFor('genai-v1') },
];

/** A fake key in the Gemini key format (never valid). */
export const TEST_API_KEY = 'AIzaSyLoopbackTestKeyNotReal0000000000';

/** Which API a client talks to: the Gemini API (an API key) or Vertex AI. */
export type GenaiApi = 'gemini' | 'vertex';

/**
 * A client of `sdk` for `api`, at `baseUrl`, with `httpOptions.timeout` = `timeoutMs`. Vertex AI
 * normally needs Application Default Credentials, which would reach the network (metadata server,
 * token endpoint). Instead the client gets a real google-auth-library `OAuth2Client` (the SDK's
 * own copy) holding an access token that expires in an hour: google-auth-library then never
 * refreshes, and the SDK sends `Authorization: Bearer …` to the loopback server with
 * `project`/`location` in the path, exactly as in production.
 */
export function newClient(
  sdk: GenaiSdk,
  { api, baseUrl, timeoutMs }: { api: GenaiApi; baseUrl: string; timeoutMs: number },
): any {
  const httpOptions = { baseUrl, timeout: timeoutMs };
  if (api === 'vertex') {
    const authClient = new sdk.authLibrary.OAuth2Client();
    authClient.setCredentials({
      access_token: 'ya29.loopback-test-token',
      expiry_date: Date.now() + 3_600_000,
    });
    return new sdk.GoogleGenAI({
      vertexai: true,
      project: 'my-project',
      location: 'us-central1',
      googleAuthOptions: { authClient },
      httpOptions,
    });
  }
  return new sdk.GoogleGenAI({ apiKey: TEST_API_KEY, httpOptions });
}

/** A client for the scenario's API (see {@link newClient}), with {@link clientTimeoutFor} as its timeout. */
export function clientFor(sdk: GenaiSdk, scenario: Pick<Scenario, 'api' | 'response'>, baseUrl: string): any {
  return newClient(sdk, {
    api: scenario.api === 'vertex' ? 'vertex' : 'gemini',
    baseUrl,
    timeoutMs: clientTimeoutFor(scenario),
  });
}

export const MODEL = 'gemini-2.5-flash';

export interface Outcome {
  /** What the SDK threw, when it threw. */
  readonly thrown?: unknown;
  readonly didThrow: boolean;
  /** The unary result, when it returned. */
  readonly result?: unknown;
  /** The chunks a stream yielded before it ended or threw. */
  readonly chunks: unknown[];
}

/** Calls `generateContent` (or `generateContentStream` and reads it to the end) and records what happened. */
export async function callScenario(
  sdk: GenaiSdk,
  scenario: Scenario,
  server: LoopbackServer,
): Promise<Outcome> {
  const client = clientFor(sdk, scenario, server.baseUrlFor(scenario));
  const chunks: unknown[] = [];
  try {
    if (scenario.stream === true) {
      const stream = await client.models.generateContentStream({
        model: MODEL,
        contents: 'Tell me a story.',
      });
      for await (const chunk of stream) chunks.push(chunk);
      return { didThrow: false, chunks };
    }
    const result = await client.models.generateContent({ model: MODEL, contents: 'Tell me a story.' });
    return { didThrow: false, result, chunks };
  } catch (thrown) {
    return { didThrow: true, thrown, chunks };
  }
}

function errorChunkCode(data: string): number | undefined | null {
  try {
    const parsed = JSON.parse(data) as { error?: { code?: unknown } };
    if (parsed === null || typeof parsed !== 'object' || typeof parsed.error !== 'object') return null;
    return typeof parsed.error?.code === 'number' ? parsed.error.code : undefined;
  } catch {
    return null;
  }
}

/** True when the SDK should throw its ApiError (an HTTP error status, or an error chunk with a 4xx/5xx code). */
export function isApiErrorScenario(scenario: Scenario): boolean {
  const response = scenario.response;
  if (response.kind === 'http') return response.status >= 400;
  if (response.kind === 'sse') {
    return response.events.some((event) => {
      const code = errorChunkCode(event.data);
      return typeof code === 'number' && code >= 400 && code < 600;
    });
  }
  return false;
}

/** True when a stream carries an error chunk that no genai major throws for (no numeric code). */
export function isSwallowedErrorScenario(scenario: Scenario): boolean {
  const response = scenario.response;
  if (response.kind !== 'sse') return false;
  return response.events.some((event) => errorChunkCode(event.data) === undefined);
}

/** True when the SDK returns normally and only the answer says it was blocked. */
export function isBlockedAnswerScenario(scenario: Scenario): boolean {
  if (scenario.expected.reason !== 'content_policy') return false;
  const response = scenario.response;
  if (response.kind === 'http') return response.status < 400;
  if (response.kind === 'sse') return response.then === 'end' && !isApiErrorScenario(scenario);
  return false;
}
