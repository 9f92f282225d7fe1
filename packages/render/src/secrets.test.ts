import type { ProviderErrorMetadata } from '@faultline/classify';
import { attachRawBody } from '@faultline/classify/toolkit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  classifyError,
  FaultlineContextError,
  formatForLlm,
  formatMarkdown,
  formatPanel,
  httpResponseFor,
  problemDetails,
  toDict,
  toErrorReport,
  toolResultFor,
  toWireError,
} from './index.ts';
import { scrubSecretsEveryPattern } from './secrets.ts';
import { scrubSecrets } from './toolkit.ts';

// Canary secrets, one of each format. None may survive into any serialised output.
const CANARIES = {
  openai: 'sk-CANARYopenai0123456789abcdefABCDEF',
  openaiProject: 'sk-proj-CANARYproj_0123456789abcdefghij-KLMN',
  anthropic: 'sk-ant-api03-CANARYanthropic0123456789abcdefghij-AA',
  groq: 'gsk_CANARYgroq0123456789abcdefghijkl',
  google: 'AIzaSyCANARYgoogle0123456789abcdefgh',
  awsAccessKey: 'AKIACANARY0123456789',
  awsSessionKey: 'ASIACANARY9876543210',
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYCANARYKEYZ',
  bearer: 'CANARYbearer.token-value_0123456789',
  xApiKey: 'CANARYxapikey0123456789',
  urlKey: 'CANARYurlkey0123456789',
  urlApiKey: 'CANARYurlapikey0123456789',
  userinfo: 'CANARYuserinfopass',
  rawBody: 'CANARY-RAW-BODY-PROMPT-TEXT',
} as const;

const SECRET_TEXT = [
  `Incorrect API key provided: ${CANARIES.openai}.`,
  `project key ${CANARIES.openaiProject}`,
  `x-api-key: ${CANARIES.anthropic}`,
  `groq ${CANARIES.groq}`,
  `GET https://generativelanguage.googleapis.com/v1beta/models?key=${CANARIES.google} failed`,
  `aws ${CANARIES.awsAccessKey} and ${CANARIES.awsSessionKey}`,
  `aws_secret_access_key=${CANARIES.awsSecret}`,
  `Authorization: Bearer ${CANARIES.bearer}`,
  `headers {"x-api-key": "${CANARIES.xApiKey}"}`,
  `https://proxy.example/v1?model=x&key=${CANARIES.urlKey}&alt=sse`,
  `https://proxy.example/v1?api_key=${CANARIES.urlApiKey}`,
  `proxy https://admin:${CANARIES.userinfo}@proxy.example/v1`,
].join(' | ');

function everyOutput(error: unknown): string[] {
  const report = toErrorReport(error);
  return [
    JSON.stringify(report),
    JSON.stringify(toDict(report)),
    JSON.stringify(error),
    formatPanel(report, { color: false }),
    formatPanel(report, { color: true }),
    JSON.stringify(toDict(error as Error)),
    formatMarkdown(report),
    formatForLlm(report),
    JSON.stringify(toolResultFor(report, { toolUseId: 'toolu_1' })),
    JSON.stringify(toWireError(report, { note: SECRET_TEXT })),
    JSON.stringify(problemDetails(report, { instance: `/v1?key=${CANARIES.urlKey}` })),
    JSON.stringify(httpResponseFor(report)),
    formatPanel(error as Error, { color: false }),
  ];
}

function expectClean(outputs: string[]): void {
  for (const output of outputs) {
    for (const [name, canary] of Object.entries(CANARIES)) {
      expect(output, `${name} leaked`).not.toContain(canary);
    }
    expect(output).not.toContain('CANARY');
  }
}

describe('secrets never reach serialised output', () => {
  it('scrubSecrets removes every planted format', () => {
    const scrubbed = scrubSecrets(SECRET_TEXT);
    expect(scrubbed).not.toContain('CANARY');
    expect(scrubbed).toContain('x-api-key');
    expect(scrubbed).toContain('[redacted]');
  });
  it('keeps ordinary text intact', () => {
    const text =
      'Rate limit reached for gpt-4o on tokens per min. Please try again in 20s. See https://platform.openai.com/docs.';
    expect(scrubSecrets(text)).toBe(text);
    expect(scrubSecrets('Invalid x-api-key')).toBe('Invalid x-api-key');
    expect(scrubSecrets('API key not valid. Please pass a valid API key.')).toBe(
      'API key not valid. Please pass a valid API key.',
    );
  });
  it('is total', () => {
    for (const value of [null, undefined, 1, {}, Symbol('x')]) expect(scrubSecrets(value)).toBe('');
    expect(scrubSecrets('x'.repeat(5_000_000)).length).toBeLessThanOrEqual(16 * 1024);
  });
  it('in the message, in metadata fields, in the raw body, through wrappers', () => {
    const metadata: ProviderErrorMetadata = {
      provider: 'openai',
      origin: 'http',
      statusCode: 401,
      message: SECRET_TEXT,
      requestId: `req_${CANARIES.openai}`,
      providerCode: `code ${CANARIES.groq}`,
      providerType: `Bearer ${CANARIES.bearer}`,
      sdkErrorType: CANARIES.google,
      networkCode: CANARIES.awsAccessKey,
    };
    attachRawBody(metadata, `{"error":"${CANARIES.rawBody}","key":"${CANARIES.openai}"}`);
    const sdkError = Object.assign(new Error(SECRET_TEXT), {
      headers: { authorization: `Bearer ${CANARIES.bearer}` },
    });
    const error = classifyError(sdkError, {
      model: `model ${CANARIES.openai}`,
      operation: `op ?key=${CANARIES.urlKey}`,
      extractors: [{ provider: 'openai', extract: () => metadata }],
    });
    expectClean(everyOutput(error));
    expectClean(everyOutput(new FaultlineContextError(`context ${SECRET_TEXT}`, { cause: error })));
    expectClean(everyOutput(new Error(`plain ${SECRET_TEXT}`, { cause: error })));
  });
  it('in an unclassified error and a thrown string', () => {
    expectClean(everyOutput(classifyError(new Error(SECRET_TEXT))));
    expectClean(everyOutput(classifyError(SECRET_TEXT)));
    expectClean(everyOutput(new Error(SECRET_TEXT)));
  });
  it('a key straddling the cut is not half shown', () => {
    const message = `${'x'.repeat(1990)} ${CANARIES.openai}`;
    const report = toErrorReport(classifyError(new Error(message)));
    expect(report.message).not.toContain('sk-CANARY');
    expect(report.message).not.toContain('CANARY');
  });
});

describe('the scrubber fast path', () => {
  // Pieces of every secret shape the patterns know, in any case, joined with ordinary words: the
  // fast path (one trigger scan, then the patterns only if needed) must equal every pattern run.
  const pieces = fc.constantFrom(
    'sk-proj-abcdefgh12345678',
    'SK-abcdefghij',
    'gsk_abcdefgh1234',
    'AIzaSyA1234567890abcdefghijklmn',
    'AKIAIOSFODNN7EXAMPLE',
    'ASIAABCDEFGHIJKLMNOP',
    'xai-abcdefghijklmnopqr',
    'hf_abcdefghijklmnopqrst',
    'eyJhbGciOi.eyJzdWIiOiIx.sig',
    'Bearer abc.def-123',
    'authorization: Basic dXNlcjpwYXNz',
    'Authorization=xyz',
    'x-api-key: k-123',
    'api_key=abc123',
    'API key provided: abcdEFGH1234****',
    'client_secret: s3cr3t',
    'password=hunter2',
    '?key=abc&sig=def',
    '&X-Amz-Signature=abc',
    'https://user:pass@host.example/path',
    'https://docs.example.com/errors',
    'Rate limit reached for gpt-4o on tokens per min (TPM)',
    'maximum context length is 16000 tokens',
    'high-risk-content',
    'You are not authorized',
    'token=abc',
    'session_token: xyz',
    'Visit https://platform.openai.com/account/rate-limits to learn more.',
    'sig',
    '?',
    '&',
    '@',
    ' ',
    '"',
    ':',
    '=',
  );
  const texts = fc.oneof(
    fc.array(pieces, { maxLength: 8 }).map((parts) => parts.join(' ')),
    fc.array(fc.oneof(pieces, fc.string({ maxLength: 12 })), { maxLength: 8 }).map((parts) => parts.join('')),
    fc.string({ maxLength: 200 }),
  );
  it('gives exactly what running every pattern gives, and is idempotent', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const scrubbed = scrubSecrets(text);
        expect(scrubbed).toBe(scrubSecretsEveryPattern(text));
        expect(scrubSecrets(scrubbed)).toBe(scrubbed);
      }),
      { seed: 20261123, numRuns: 2000 },
    );
  });

  it('answers a string seen before (remembered) exactly as the first time, across evictions', () => {
    fc.assert(
      fc.property(fc.array(texts, { minLength: 1, maxLength: 200 }), (batch) => {
        const first = batch.map((text) => scrubSecrets(text));
        // A second round over more strings than are remembered: some answers come from memory,
        // the others are scrubbed again; all must equal the reference.
        batch.forEach((text, index) => {
          expect(scrubSecrets(text)).toBe(first[index]);
          expect(first[index]).toBe(scrubSecretsEveryPattern(text));
        });
      }),
      { seed: 20261124, numRuns: 100 },
    );
  });
});
