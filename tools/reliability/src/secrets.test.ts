import { inspect } from 'node:util';
import { FaultlineJobError, withFaultlineProcessor } from '@faultline/bullmq';
import {
  FaultlineError,
  formatForLlm,
  formatMarkdown,
  formatPanel,
  httpResponseFor,
  problemDetails,
  toDict,
  toErrorReport,
  toolResultFor,
  toWireError,
} from '@faultline/render';
import {
  callProvider,
  DRIVEN_PROVIDERS,
  type DrivenProvider,
  type ScenarioServers,
  startScenarioServers,
} from '@faultline/scenario-driver';
import { withFaultlineActivity } from '@faultline/temporal';
import type { Scenario } from '@faultline/test-fixtures';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY_PROMPT, canaryKey, leaksIn } from './canaries.ts';
import { BOUND_WRAPPERS, EXTRACTORS } from './entry-points.ts';

// The credential forms below are those of the providers that echo them this way.
const GOOGLE_KEY = canaryKey('google-genai');
const MISTRAL_KEY = canaryKey('mistral');
const AWS_ACCESS_KEY_ID = canaryKey('bedrock', 0);
const AWS_SECRET_ACCESS_KEY = canaryKey('bedrock', 1);

/** A provider message that echoes every credential form providers and proxies are seen to echo. */
function echoingMessage(key: string): string {
  return [
    `Incorrect API key provided: ${key}.`,
    `Authorization: Bearer ${key};`,
    `x-api-key: ${key};`,
    `api_key=${MISTRAL_KEY};`,
    `aws_secret_access_key=${AWS_SECRET_ACCESS_KEY};`,
    `credential ${AWS_ACCESS_KEY_ID}/20250101/us-east-1/bedrock/aws4_request;`,
    `see https://generativelanguage.googleapis.com/v1beta/models/gemini:generateContent?key=${GOOGLE_KEY}&alt=sse`,
  ].join(' ');
}

/** Response headers that echo the request's credentials (proxies and gateways do). */
function echoingHeaders(key: string): Record<string, string> {
  return {
    'www-authenticate': `Bearer realm="api", token="${key}"`,
    'x-echo-authorization': `Bearer ${key}`,
    'x-api-key': key,
    'x-goog-api-key': GOOGLE_KEY,
    'x-amz-security-token': AWS_SECRET_ACCESS_KEY,
    'x-echo-prompt': CANARY_PROMPT,
    'x-request-id': `req_${canaryKey('openai')}`,
  };
}

/** Each provider's own error body, echoing the key (in the message) and the prompt (elsewhere). */
function echoingBody(provider: DrivenProvider, status: number): string {
  const key = canaryKey(provider);
  const message = echoingMessage(key);
  switch (provider) {
    case 'anthropic':
      return JSON.stringify({
        type: 'error',
        error: { type: status === 401 ? 'authentication_error' : 'invalid_request_error', message },
        request: { messages: [{ role: 'user', content: CANARY_PROMPT }] },
      });
    case 'google-genai':
      return JSON.stringify({
        error: {
          code: status,
          message,
          status: status === 401 ? 'UNAUTHENTICATED' : 'INVALID_ARGUMENT',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.BadRequest',
              fieldViolations: [{ field: 'contents[0].parts[0].text', description: CANARY_PROMPT }],
            },
            { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', metadata: { key: GOOGLE_KEY } },
          ],
        },
      });
    case 'mistral':
      return status === 422
        ? JSON.stringify({
            object: 'error',
            message: {
              detail: [
                {
                  type: 'value_error',
                  loc: ['body', 'messages', 0, 'content'],
                  msg: message,
                  input: CANARY_PROMPT,
                },
              ],
            },
            type: 'invalid_request_error',
          })
        : JSON.stringify({ detail: message, request: CANARY_PROMPT });
    case 'bedrock':
      return JSON.stringify({ message, Message: CANARY_PROMPT, requestBody: CANARY_PROMPT });
    default:
      // openai, groq, and every provider with the generic { error: { message, type, code } } body
      // (a scaffolded provider's, until its own format is taught here).
      return JSON.stringify({
        error: {
          message,
          type: 'invalid_request_error',
          param: 'messages[0].content',
          code: 'invalid_api_key',
        },
        request: { messages: [{ role: 'user', content: CANARY_PROMPT }], api_key: key },
      });
  }
}

const STATUSES = [400, 401, 422, 429, 500] as const;

function echoScenario(provider: DrivenProvider, status: number, stream: boolean): Scenario {
  const headers = echoingHeaders(canaryKey(provider));
  if (provider === 'bedrock') {
    headers['x-amzn-errortype'] = status === 429 ? 'ThrottlingException' : 'ValidationException';
  }
  return {
    id: `${provider}/echo-${status}`,
    provider,
    description: 'an error that echoes credentials and the prompt',
    source: 'tools/reliability',
    stream,
    response: { kind: 'http', status, headers, body: echoingBody(provider, status) },
    expected: {
      category: 'unknown',
      reason: 'unknown',
      retryable: false,
      userAction: 'unknown',
      httpStatus: 500,
    },
  };
}

/** Everything faultline writes about one classified error, labelled. */
async function everythingWrittenAbout(
  error: FaultlineError,
  sdkError: unknown,
  provider: string,
): Promise<Record<string, string>> {
  const report = toErrorReport(error);
  const { cause: _cause, ...enumerable } = Object.fromEntries(Object.entries(error));
  const written: Record<string, string> = {
    message: error.message,
    'stack (first line)': String(error.stack).split('\n')[0] ?? '',
    'JSON.stringify(error)': JSON.stringify(error),
    report: JSON.stringify(report),
    // What a structured logger (pino's err serializer, util.inspect) writes: the enumerable fields.
    'enumerable fields (log line)': inspect(enumerable, { depth: 6, maxStringLength: null }),
    formatPanel: formatPanel(error, { color: false }),
    toDict: JSON.stringify(toDict(error)),
    formatMarkdown: formatMarkdown(error),
    formatForLlm: formatForLlm(error),
    toolResultFor: JSON.stringify(toolResultFor(error, { toolUseId: 'toolu_1' })),
    toWireError: JSON.stringify(toWireError(error)),
    problemDetails: JSON.stringify(problemDetails(error)),
    httpResponseFor: JSON.stringify(httpResponseFor(error)),
  };
  // The bridges, fed the SDK's own error (as an activity or processor would throw it).
  const extractor = EXTRACTORS[provider];
  const extractors = extractor ? [extractor] : [];
  try {
    await withFaultlineActivity(
      async () => {
        throw sdkError;
      },
      { extractors },
    )();
  } catch (failure) {
    const applicationFailure = failure as { message?: unknown; details?: unknown };
    written['Temporal ApplicationFailure message'] = String(applicationFailure.message);
    written['Temporal ApplicationFailure details'] = JSON.stringify(applicationFailure.details);
  }
  try {
    await withFaultlineProcessor(
      async () => {
        throw sdkError;
      },
      { extractors },
    )({});
  } catch (failure) {
    if (failure instanceof FaultlineJobError) {
      written['BullMQ failedReason'] = failure.message;
      written['BullMQ report'] = JSON.stringify(failure.report);
    }
  }
  return written;
}

function leaksOf(written: Record<string, string>): string[] {
  return Object.entries(written).flatMap(([where, text]) =>
    leaksIn(text).map((fragment) => {
      const at = text.indexOf(fragment);
      return `${where}: …${text.slice(Math.max(0, at - 60), at + fragment.length + 20)}…`;
    }),
  );
}

describe('secrets never leave faultline (real SDKs, echoing error bodies)', () => {
  let servers: ScenarioServers;
  beforeAll(async () => {
    servers = await startScenarioServers();
  });
  afterAll(async () => {
    await servers.close();
  });

  const cases = DRIVEN_PROVIDERS.flatMap((provider) =>
    STATUSES.flatMap((status) =>
      [false, true]
        .filter((stream) => !stream || provider === 'openai' || provider === 'anthropic')
        .map((stream) => [provider, status, stream] as const),
    ),
  );

  it.each(cases)(
    '%s %i (stream: %s): no key, credential or prompt in any output',
    async (provider, status, stream) => {
      const scenario = echoScenario(provider, status, stream);
      const baseUrl = servers.baseUrlFor(scenario);
      let sdkError: unknown;
      try {
        await callProvider(scenario, baseUrl, { timeoutMs: 5_000 });
      } catch (thrown) {
        sdkError = thrown;
      }
      expect(sdkError, 'the SDK must throw').toBeDefined();
      // The request really carried the canaries (so the test could fail).
      const requests = servers.http1.requests(scenario).concat(servers.h2c.requests(scenario));
      expect(requests.length).toBeGreaterThan(0);
      expect(JSON.stringify(requests)).toContain(CANARY_PROMPT);

      const bound = BOUND_WRAPPERS[provider]!;
      let classified: unknown;
      try {
        await bound(async () => {
          throw sdkError;
        });
      } catch (thrown) {
        classified = thrown;
      }
      expect(FaultlineError.isInstance(classified)).toBe(true);
      const written = await everythingWrittenAbout(classified as FaultlineError, sdkError, provider);
      expect(leaksOf(written)).toEqual([]);
    },
  );
});

describe('secrets planted anywhere in a thrown value (fast-check, fixed seed)', () => {
  const SECRETS = [
    canaryKey('openai'),
    canaryKey('anthropic'),
    GOOGLE_KEY,
    canaryKey('groq'),
    AWS_ACCESS_KEY_ID,
    `Bearer ${MISTRAL_KEY}`,
    `Authorization: Basic ${MISTRAL_KEY}`,
    `x-api-key: ${MISTRAL_KEY}`,
    `aws_secret_access_key=${AWS_SECRET_ACCESS_KEY}`,
    `https://example.test/v1/models?key=${MISTRAL_KEY}`,
  ];
  const text = fc
    .tuple(fc.string({ maxLength: 40 }), fc.constantFrom(...SECRETS), fc.string({ maxLength: 40 }))
    .map(([before, secret, after]) => `${before} ${secret} ${after}`);
  const body = fc.oneof(
    text,
    text.map((message) =>
      JSON.stringify({ error: { message, type: 'invalid_request_error', code: message } }),
    ),
    text.map((message) => ({ error: { message, type: message }, request_id: message })),
  );
  const thrownValue = fc.oneof(
    text,
    fc
      .record({
        message: text,
        status: fc.constantFrom(400, 401, 403, 429, 500, 503),
        error: body,
        headers: fc.constant({}),
      })
      .map((shape) =>
        Object.assign(new Error(shape.message), { ...shape, name: 'APIError', requestID: shape.message }),
      ),
    fc
      .record({ message: text, statusCode: fc.constantFrom(400, 401, 422, 500), body })
      .map((shape) => Object.assign(new Error(shape.message), { ...shape, name: 'SDKError' })),
    fc
      .record({ message: text, cause: text })
      .map((shape) => new Error(shape.message, { cause: new Error(shape.cause) })),
    fc.record({ message: text, code: fc.constantFrom('ECONNRESET', 'ENOTFOUND') }).map(
      (shape) =>
        new TypeError('fetch failed', {
          cause: Object.assign(new Error(shape.message), { code: shape.code }),
        }),
    ),
  );

  it('no report, formatter or problem+json output carries a planted key (400 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(
        thrownValue,
        fc.constantFrom(...Object.keys(BOUND_WRAPPERS)),
        async (value, provider) => {
          let classified: unknown;
          try {
            await BOUND_WRAPPERS[provider]!(async () => {
              throw value;
            });
          } catch (thrown) {
            classified = thrown;
          }
          if (!FaultlineError.isInstance(classified)) return false;
          const written = await everythingWrittenAbout(classified, value, provider);
          const leaks = leaksOf(written);
          if (leaks.length > 0) throw new Error(`leaked: ${leaks.join(', ')}`);
          return true;
        },
      ),
      { seed: 20_251_122, numRuns: 400 },
    );
  });
});
