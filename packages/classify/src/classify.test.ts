/**
 * Table-driven tests of classify(): every row of docs/contributing/design.md's taxonomy and every signal rule,
 * run with metadata as an extractor would produce it. The expected rows are written out here from
 * docs/contributing/design.md (not read from TAXONOMY), so a drift in taxonomy.ts fails these tests.
 */
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createServer as createNetServer, type Server } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { evidenceOf, MAY_HOLD_SECRET, SECRETS, secondsOf } from './features.ts';
import {
  type Classification,
  classify,
  explainClassification,
  type FailureReason,
  onExtractorCrash,
  type ProviderErrorMetadata,
  TAXONOMY,
} from './index.ts';
import {
  defineExtractor,
  inspectTransportError,
  MAX_RETRY_AFTER_SECONDS,
  parseDurationSeconds,
  parseRetryAfterValue,
  retryAfterFromHeaders,
  signalAbortOrigin,
  waitFromText,
} from './toolkit.ts';
import { THROTTLE } from './vocabulary.ts';

type Hint = 'rotateCredential' | 'fallback' | 'compress';

interface DesignRow {
  category: string;
  retryable: boolean;
  userAction: string;
  recovery: Hint[];
  domain: string;
  http: number;
}

// docs/contributing/design.md "The taxonomy", written out row by row.
const DESIGN_TABLE: Record<FailureReason, DesignRow> = {
  rate_limit: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    recovery: ['rotateCredential', 'fallback'],
    domain: 'runtime',
    http: 429,
  },
  overloaded: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    recovery: ['fallback'],
    domain: 'runtime',
    http: 503,
  },
  server_error: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    recovery: [],
    domain: 'runtime',
    http: 503,
  },
  timeout: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    recovery: [],
    domain: 'runtime',
    http: 503,
  },
  connection: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    recovery: [],
    domain: 'runtime',
    http: 503,
  },
  interrupted: {
    category: 'ambiguous',
    retryable: false,
    userAction: 'wait_and_retry',
    recovery: [],
    domain: 'runtime',
    http: 502,
  },
  auth: {
    category: 'configuration',
    retryable: false,
    userAction: 'check_credentials',
    recovery: ['rotateCredential'],
    domain: 'config',
    http: 500,
  },
  permission: {
    category: 'configuration',
    retryable: false,
    userAction: 'check_credentials',
    recovery: ['fallback'],
    domain: 'config',
    http: 500,
  },
  model_not_found: {
    category: 'configuration',
    retryable: false,
    userAction: 'change_model',
    recovery: ['fallback'],
    domain: 'config',
    http: 500,
  },
  not_found: {
    category: 'configuration',
    retryable: false,
    userAction: 'check_configuration',
    recovery: [],
    domain: 'config',
    http: 500,
  },
  endpoint: {
    category: 'configuration',
    retryable: false,
    userAction: 'check_configuration',
    recovery: [],
    domain: 'config',
    http: 500,
  },
  quota: {
    category: 'capacity',
    retryable: false,
    userAction: 'check_billing',
    recovery: ['fallback'],
    domain: 'config',
    http: 500,
  },
  billing: {
    category: 'capacity',
    retryable: false,
    userAction: 'check_billing',
    recovery: ['rotateCredential', 'fallback'],
    domain: 'config',
    http: 500,
  },
  context_overflow: {
    category: 'content',
    retryable: false,
    userAction: 'change_input',
    recovery: ['compress'],
    domain: 'input',
    http: 422,
  },
  content_policy: {
    category: 'content',
    retryable: false,
    userAction: 'change_input',
    // Another provider may accept it, but a chain moves on only when the caller opts in: no hint.
    recovery: [],
    domain: 'input',
    http: 422,
  },
  invalid_request: {
    category: 'content',
    retryable: false,
    userAction: 'change_input',
    recovery: [],
    domain: 'input',
    http: 422,
  },
  unsupported_media: {
    category: 'content',
    retryable: false,
    userAction: 'change_input',
    recovery: [],
    domain: 'input',
    http: 422,
  },
  local_bug: {
    category: 'unknown',
    retryable: false,
    userAction: 'contact_support',
    recovery: [],
    domain: 'runtime',
    http: 500,
  },
  cancelled: {
    category: 'cancelled',
    retryable: false,
    userAction: 'none',
    recovery: [],
    domain: 'runtime',
    http: 499,
  },
  unknown: {
    category: 'unknown',
    retryable: false,
    userAction: 'unknown',
    recovery: [],
    domain: 'runtime',
    http: 500,
  },
};

/** docs/contributing/design.md "An agent gets one next step derived from the row". */
function expectedNextStep(reason: FailureReason): string {
  const row = DESIGN_TABLE[reason];
  if (reason === 'context_overflow') return 'compress';
  if (row.category === 'content') return 'change_input';
  if (row.category === 'capacity' || reason === 'model_not_found' || reason === 'permission')
    return 'fallback';
  if (row.category === 'configuration') return 'fix_configuration';
  if (reason === 'local_bug' || reason === 'unknown') return 'report_bug';
  if (row.category === 'cancelled') return 'stop';
  // Ambiguous (interrupted): the provider may have processed the request, so the step says the
  // retry is the caller's to make, only if the call is idempotent (then it is plain `retry`).
  if (row.category === 'ambiguous') return 'retry_if_idempotent';
  // transient: retry after the wait.
  return 'retry';
}

function expectRow(classification: Classification, reason: FailureReason): void {
  const row = DESIGN_TABLE[reason];
  expect(classification.reason).toBe(reason);
  expect(classification.category).toBe(row.category);
  expect(classification.retryable).toBe(row.retryable);
  expect(classification.domain).toBe(row.domain);
  expect(classification.httpStatus).toBe(row.http);
  expect(classification.nextStep).toBe(expectedNextStep(reason));
  expect(classification.recovery).toEqual({
    rotateCredential: row.recovery.includes('rotateCredential'),
    fallback: row.recovery.includes('fallback'),
    compress: row.recovery.includes('compress'),
  });
}

const http = (
  statusCode: number,
  message = '',
  extra: Partial<ProviderErrorMetadata> = {},
): ProviderErrorMetadata => ({
  provider: 'test',
  origin: 'http',
  statusCode,
  message,
  ...extra,
});

// One representative metadata per reason, as an extractor would fill it.
const ROW_EXAMPLES: Record<FailureReason, ProviderErrorMetadata> = {
  rate_limit: http(429, 'Rate limit reached for gpt-4o on requests per min (RPM): Limit 500, Used 500.', {
    providerCode: 'rate_limit_exceeded',
  }),
  overloaded: http(529, 'Overloaded', { providerType: 'overloaded_error' }),
  server_error: http(500, 'The server had an error while processing your request.', {
    providerType: 'server_error',
  }),
  timeout: {
    provider: 'openai',
    origin: 'timeout',
    networkPhase: 'before_response',
    message: 'Request timed out.',
  },
  connection: {
    provider: 'node',
    origin: 'network',
    networkPhase: 'connect',
    networkCode: 'ECONNREFUSED',
    message: 'fetch failed',
  },
  interrupted: {
    provider: 'node',
    origin: 'network',
    networkPhase: 'before_response',
    networkCode: 'ECONNRESET',
    message: 'fetch failed',
  },
  auth: http(401, 'Incorrect API key provided: sk-abc***.', { providerCode: 'invalid_api_key' }),
  permission: http(403, 'You are not allowed to sample from this model'),
  model_not_found: http(404, 'The model `gpt-9` does not exist or you do not have access to it.', {
    providerCode: 'model_not_found',
  }),
  not_found: http(404, 'Not Found'),
  endpoint: {
    provider: 'node',
    origin: 'network',
    networkPhase: 'dns',
    networkCode: 'ENOTFOUND',
    message: 'fetch failed',
  },
  quota: http(429, 'You exceeded your current quota, please check your plan and billing details.', {
    providerCode: 'insufficient_quota',
  }),
  billing: http(402, 'Insufficient credits'),
  context_overflow: http(400, "This model's maximum context length is 128000 tokens.", {
    providerCode: 'context_length_exceeded',
  }),
  content_policy: {
    provider: 'google',
    origin: 'blocked_response',
    statusCode: 200,
    message: 'Response was blocked',
    blockReason: 'SAFETY',
  },
  invalid_request: http(400, "Invalid value for 'temperature': must be at most 2.", {
    providerType: 'invalid_request_error',
  }),
  unsupported_media: http(400, 'Image format image/bmp is not supported', {
    providerType: 'invalid_request_error',
  }),
  local_bug: {
    provider: 'local',
    origin: 'local',
    sdkErrorType: 'TypeError',
    message: "Cannot read properties of undefined (reading 'choices')",
  },
  cancelled: { provider: 'openai', origin: 'abort', message: 'Request was aborted.' },
  unknown: { provider: 'unknown', origin: 'unknown', message: 'something odd' },
};

describe('every row of the taxonomy', () => {
  it('covers every reason of docs/contributing/design.md', () => {
    expect(Object.keys(ROW_EXAMPLES).sort()).toEqual(Object.keys(DESIGN_TABLE).sort());
  });
  for (const [reason, metadata] of Object.entries(ROW_EXAMPLES) as Array<
    [FailureReason, ProviderErrorMetadata]
  >) {
    it(`${reason}`, () => {
      expectRow(classify(metadata), reason);
    });
  }
  it('user action kinds follow the table', () => {
    for (const [reason, metadata] of Object.entries(ROW_EXAMPLES) as Array<
      [FailureReason, ProviderErrorMetadata]
    >) {
      expect(classify(metadata).userAction.kind, reason).toBe(DESIGN_TABLE[reason].userAction);
    }
  });
  it("a fallback hint only where a chain's defaults move on (the fallback column)", () => {
    const hinted = (Object.entries(ROW_EXAMPLES) as Array<[FailureReason, ProviderErrorMetadata]>)
      .filter(([, metadata]) => classify(metadata).recovery.fallback)
      .map(([reason]) => [reason, TAXONOMY[reason].fallback]);
    expect(hinted.length).toBeGreaterThan(0);
    for (const [reason, column] of hinted)
      expect(['yes', 'larger_window', 'other_credential'], reason).toContain(column);
    // content_policy: another provider may accept the input, but only a caller who opts in moves on.
    expect(TAXONOMY.content_policy.fallback).toBe('opt_in');
    expect(classify(ROW_EXAMPLES.content_policy).recovery.fallback).toBe(false);
  });
  it('interrupted becomes retryable only when the caller says the call is idempotent', () => {
    expect(classify(ROW_EXAMPLES.interrupted).retryable).toBe(false);
    expect(classify(ROW_EXAMPLES.interrupted, { idempotent: true }).retryable).toBe(true);
    // Idempotency never makes a non-ambiguous failure retryable.
    for (const reason of ['unknown', 'auth', 'quota', 'context_overflow', 'local_bug'] as const) {
      expect(classify(ROW_EXAMPLES[reason], { idempotent: true }).retryable, reason).toBe(false);
    }
  });
});

describe('quota versus rate limit (429)', () => {
  const cases: Array<[string, ProviderErrorMetadata, FailureReason]> = [
    [
      'insufficient_quota code',
      http(429, 'You exceeded your current quota.', { providerCode: 'insufficient_quota' }),
      'quota',
    ],
    [
      'a per-day cap',
      http(
        429,
        'Rate limit reached for model `llama-3.3-70b` on tokens per day (TPD): Limit 100000, Used 99500.',
      ),
      'quota',
    ],
    ['a daily cap', http(429, 'You have hit your daily request limit.'), 'quota'],
    ['credit balance', http(400, 'Your credit balance is too low to access the Anthropic API.'), 'billing'],
    [
      'billing in the text',
      http(429, 'You exceeded your current quota, please check your plan and billing details.'),
      'quota',
    ],
    [
      'the bare word billing in the text',
      http(429, 'Request was rejected: billing hard limit reached.'),
      'quota',
    ],
    [
      'billing only inside a URL',
      http(
        429,
        'Rate limit reached for requests. See https://platform.openai.com/account/billing/limits for more.',
      ),
      'rate_limit',
    ],
    ['a plain rate limit', http(429, 'Too Many Requests'), 'rate_limit'],
    [
      'Bedrock throttling words in a stream event without a type',
      {
        provider: 'bedrock',
        message: 'Too many tokens, please wait before trying again.',
        origin: 'stream_event',
      },
      'rate_limit',
    ],
    [
      'a per-minute quota id outranks billing text',
      http(429, 'Quota exceeded for metric. Please check your plan and billing details.', {
        providerType: 'RESOURCE_EXHAUSTED',
        quotaIds: ['GenerateRequestsPerMinutePerProjectPerModel'],
      }),
      'rate_limit',
    ],
    [
      'a per-day quota id outranks rate-limit text',
      http(429, 'Resource has been exhausted (e.g. check quota).', {
        providerType: 'RESOURCE_EXHAUSTED',
        quotaIds: ['GenerateRequestsPerDayPerProjectPerModel-FreeTier'],
      }),
      'quota',
    ],
  ];
  for (const [name, metadata, reason] of cases) {
    it(name, () => {
      const classification = classify(metadata);
      expect(classification.reason).toBe(reason);
      expect(classification.category).toBe(DESIGN_TABLE[reason].category);
    });
  }

  it('a wait longer than an hour is quota, and the wait is kept', () => {
    const classification = classify(http(429, 'Rate limit exceeded', { retryAfterSeconds: 7200 }));
    expect(classification.reason).toBe('quota');
    expect(classification.retryable).toBe(false);
    expect(classification.retryAfterSeconds).toBe(7200);
  });
  it("a wait in the provider's own words longer than an hour is quota", () => {
    expect(classify(http(429, 'Rate limit exceeded. Please try again in 2h30m0s.')).reason).toBe('quota');
  });
  it('a wait of exactly an hour or less stays a rate limit', () => {
    const classification = classify(http(429, 'Rate limit exceeded', { retryAfterSeconds: 3600 }));
    expect(classification.reason).toBe('rate_limit');
    expect(classification.retryAfterSeconds).toBe(3600);
  });
});

describe('request too large and context overflow', () => {
  it('a 429 request-too-large is context_overflow, not a rate limit', () => {
    const metadata = http(
      429,
      'Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 52000. The input or output tokens must be reduced in order to run successfully.',
      { providerCode: 'rate_limit_exceeded', providerType: 'tokens' },
    );
    expectRow(classify(metadata), 'context_overflow');
  });
  it('a 413 request-too-large is context_overflow', () => {
    const metadata = http(
      413,
      'Request too large for model `llama-3.3-70b-versatile`. Please reduce your message size and try again.',
      {
        providerType: 'invalid_request_error',
        providerCode: 'request_too_large',
      },
    );
    expectRow(classify(metadata), 'context_overflow');
  });
  const overflowTexts = [
    'prompt is too long: 215000 tokens > 200000 maximum',
    'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    'Prompt contains 40000 tokens, too many tokens for model.',
    'Input is too long for requested model.',
  ];
  for (const text of overflowTexts) {
    it(`beats a 5xx: "${text.slice(0, 30)}..."`, () => {
      expectRow(classify(http(500, text)), 'context_overflow');
      expectRow(classify(http(400, text)), 'context_overflow');
    });
    it(`beats a stream error event: "${text.slice(0, 30)}..."`, () => {
      expectRow(classify({ provider: 'test', origin: 'stream_event', message: text }), 'context_overflow');
    });
  }
  it('context_length_exceeded as a code wins over a 503', () => {
    expect(classify(http(503, 'error', { providerCode: 'context_length_exceeded' })).reason).toBe(
      'context_overflow',
    );
  });
});

describe('404: model or not', () => {
  it('a body naming a model is model_not_found', () => {
    expectRow(
      classify(http(404, 'The model `gpt-9` does not exist or you do not have access to it.')),
      'model_not_found',
    );
    expectRow(
      classify(
        http(
          404,
          'models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.',
        ),
      ),
      'model_not_found',
    );
  });
  it("a router's no-endpoints answer is model_not_found", () => {
    expectRow(classify(http(404, 'No endpoints found that support image input')), 'model_not_found');
  });
  it('a bare 404 is not_found', () => {
    expectRow(classify(http(404, '')), 'not_found');
    expectRow(classify(http(404, '404 page not found')), 'not_found');
  });
  it('an HTML 404 from a proxy is not_found', () => {
    expectRow(
      classify(
        http(
          404,
          '<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>',
        ),
      ),
      'not_found',
    );
  });
});

describe('account blocks', () => {
  const blocks = [
    http(401, 'Your organization has been disabled.'),
    http(403, 'Your organization has been disabled.'),
    http(400, 'Organization has been restricted, reach out to support.', {
      providerCode: 'organization_restricted',
    }),
    http(403, 'Your account is suspended. Please contact support.'),
  ];
  for (const metadata of blocks) {
    it(`${metadata.statusCode} "${metadata.message}" is permission / contact_support`, () => {
      const classification = classify(metadata);
      expect(classification.reason).toBe('permission');
      expect(classification.category).toBe('configuration');
      expect(classification.userAction.kind).toBe('contact_support');
      expect(classification.retryable).toBe(false);
    });
  }
  it('a plain 403 keeps check_credentials', () => {
    expect(classify(http(403, 'Forbidden')).userAction.kind).toBe('check_credentials');
  });
});

describe('status fallbacks with no provider signal', () => {
  // docs/contributing/design.md: "With no provider signal in the body, the status decides".
  const fallbacks: Array<[number, FailureReason]> = [
    [400, 'invalid_request'],
    [413, 'invalid_request'],
    [415, 'invalid_request'],
    [422, 'invalid_request'],
    [418, 'invalid_request'],
    [499, 'invalid_request'],
    [401, 'auth'],
    [403, 'permission'],
    [402, 'billing'],
    [404, 'not_found'],
    [405, 'not_found'],
    [410, 'not_found'],
    [408, 'timeout'],
    [409, 'overloaded'],
    [425, 'overloaded'],
    [429, 'rate_limit'],
    [451, 'content_policy'],
    [503, 'overloaded'],
    [529, 'overloaded'],
    [500, 'server_error'],
    [502, 'server_error'],
    [504, 'server_error'],
    [507, 'server_error'],
    [599, 'server_error'],
  ];
  for (const [status, reason] of fallbacks) {
    it(`${status} → ${reason}`, () => {
      expectRow(classify(http(status, '')), reason);
    });
  }
  it('a non-error status reaching an extractor is unknown', () => {
    for (const status of [200, 201, 204, 301, 304]) {
      expectRow(
        classify({ provider: 'test', origin: 'unknown', statusCode: status, message: '' }),
        'unknown',
      );
      expectRow(classify(http(status, '')), 'unknown');
    }
  });
});

describe('network and local failures', () => {
  it('network phases', () => {
    const network = (
      networkPhase: ProviderErrorMetadata['networkPhase'],
      networkCode?: string,
    ): ProviderErrorMetadata => ({
      provider: 'node',
      origin: 'network',
      networkPhase,
      ...(networkCode ? { networkCode } : {}),
      message: 'fetch failed',
    });
    expectRow(classify(network('dns', 'ENOTFOUND')), 'endpoint');
    expectRow(classify(network('dns', 'EAI_AGAIN')), 'endpoint');
    expectRow(classify(network('connect', 'ECONNREFUSED')), 'connection');
    expectRow(classify(network('before_response', 'ECONNRESET')), 'interrupted');
    expectRow(classify(network('response_body')), 'interrupted');
    expectRow(classify(network('stream')), 'interrupted');
  });
  it('a timeout mid-stream is interrupted; before any byte it is timeout', () => {
    expectRow(
      classify({ provider: 'node', origin: 'timeout', networkPhase: 'stream', message: 'idle' }),
      'interrupted',
    );
    expectRow(
      classify({
        provider: 'node',
        origin: 'timeout',
        networkPhase: 'unknown',
        message: 'Request timed out',
      }),
      'timeout',
    );
  });
  it('a local bug is local_bug, never retryable', () => {
    const classification = classify({
      provider: 'local',
      origin: 'local',
      message: 'x is not a function',
      sdkErrorType: 'TypeError',
    });
    expectRow(classification, 'local_bug');
    expect(classification.userAction.kind).toBe('contact_support');
  });
  it("undici's TypeError: fetch failed is read as a network error, never a local bug", () => {
    const error = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });
    const failure = inspectTransportError(error);
    expect(failure?.origin).toBe('network');
    expect(classify({ provider: 'node', ...failure!, message: failure!.message }).reason).toBe('connection');
  });
});

/** Metadata exactly as a transport extractor builds it from a real thrown value. */
function fromTransport(error: unknown, signal?: AbortSignal): ProviderErrorMetadata {
  const failure = inspectTransportError(error, signal);
  expect(failure, String(error)).toBeDefined();
  const metadata: ProviderErrorMetadata = {
    provider: 'node',
    origin: failure!.origin,
    networkPhase: failure!.networkPhase,
    message: failure!.message,
  };
  if (failure!.networkCode !== undefined) metadata.networkCode = failure!.networkCode;
  return metadata;
}

async function thrownBy(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('real undici errors', () => {
  const servers: Server[] = [];
  afterAll(() => {
    for (const server of servers) server.close();
  });

  it('ECONNREFUSED from a closed 127.0.0.1 port is connection (transient)', async () => {
    const server = createNetServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await thrownBy(
      fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', body: '{}' }),
    );
    expect((error as Error).message).toBe('fetch failed');
    const metadata = fromTransport(error);
    expect(metadata.networkCode).toBe('ECONNREFUSED');
    expectRow(classify(metadata), 'connection');
  });

  it('a .invalid host is endpoint (DNS failure, configuration)', async () => {
    const error = await thrownBy(
      fetch('http://faultline-test.invalid/v1/models', { signal: AbortSignal.timeout(10_000) }),
    );
    const metadata = fromTransport(error);
    expect(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']).toContain(metadata.networkCode);
    expectRow(classify(metadata), 'endpoint');
  });

  it('a socket destroyed after the request was written is interrupted (ambiguous)', async () => {
    const server = createNetServer((socket) => {
      socket.once('data', () => socket.destroy());
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const error = await thrownBy(
      fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', body: '{"model":"x"}' }),
    );
    expect((error as Error).message).toBe('fetch failed');
    const metadata = fromTransport(error);
    expect(metadata.networkPhase).not.toBe('connect');
    const classification = classify(metadata);
    expectRow(classification, 'interrupted');
    expect(classify(metadata, { idempotent: true }).retryable).toBe(true);
  });

  it("Node http's socket hang up after the request was written is interrupted", async () => {
    const server = createNetServer((socket) => {
      socket.once('data', () => socket.destroy());
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const error = await new Promise<unknown>((resolve) => {
      const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1' }, () =>
        resolve(undefined),
      );
      request.on('error', resolve);
      request.end('{"model":"x"}');
    });
    expect((error as Error).message).toBe('socket hang up');
    expectRow(classify(fromTransport(error)), 'interrupted');
  });

  it('a body cut after the status is interrupted (terminated)', async () => {
    const server = createHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"partial":');
      setTimeout(() => response.socket?.destroy(), 10);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const response = await fetch(`http://127.0.0.1:${port}/stream`);
      const error = await thrownBy(response.text());
      const metadata = fromTransport(error);
      expectRow(classify(metadata), 'interrupted');
    } finally {
      server.close();
    }
  });

  it("the caller's own abort is not a provider failure and is never retryable", async () => {
    const server = createHttpServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const controller = new AbortController();
    try {
      const pending = fetch(`http://127.0.0.1:${port}/slow`, { signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      const error = await thrownBy(pending);
      expect((error as Error).name).toBe('AbortError');
      const metadata = fromTransport(error, controller.signal);
      expect(metadata.origin).toBe('abort');
      const classification = classify(metadata);
      expect(classification.callerAborted).toBe(true);
      expect(classification.retryable).toBe(false);
      expect(classify(metadata, { idempotent: true }).retryable).toBe(false);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('unknown is never retryable', () => {
  it('for any metadata that classifies as unknown, with or without idempotent', () => {
    const metadata = fc.record(
      {
        provider: fc.string(),
        message: fc.string({ maxLength: 200 }),
        origin: fc.constantFrom(
          'http',
          'stream_event',
          'network',
          'timeout',
          'abort',
          'malformed_response',
          'blocked_response',
          'local',
          'validation',
          'unknown',
        ),
        statusCode: fc.integer({ min: 100, max: 599 }),
        providerCode: fc.string({ maxLength: 30 }),
        sdkErrorType: fc.string({ maxLength: 30 }),
        retryAfterSeconds: fc.double({ min: 0, max: 1e6, noNaN: true }),
      },
      { requiredKeys: ['provider', 'message', 'origin'] },
    );
    fc.assert(
      fc.property(metadata, fc.boolean(), (value, idempotent) => {
        const classification = classify(value as ProviderErrorMetadata, { idempotent });
        if (classification.category === 'unknown') expect(classification.retryable).toBe(false);
        if (classification.category !== 'transient' && classification.category !== 'ambiguous') {
          expect(classification.retryable).toBe(false);
        }
      }),
      { seed: 20261121, numRuns: 500 },
    );
  });
  it('classify is total on values that are not metadata', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    for (const value of [
      null,
      undefined,
      42,
      'text',
      Symbol('x'),
      hostile,
      { message: 'x'.repeat(5_000_000) },
    ]) {
      const classification = classify(value as never);
      expect(classification.retryable).toBe(false);
    }
  });
  it('classify and explainClassification are total on a field that is a revoked proxy, and read the other fields', () => {
    // `Array.isArray` throws on a revoked proxy: the quota ids' check must be inside the guard.
    const revoked = Proxy.revocable([], {});
    revoked.revoke();
    for (const field of ['quotaIds', 'message', 'origin', 'statusCode', 'sdkCondition'] as const) {
      const metadata = { ...http(429, 'Rate limit reached'), [field]: revoked.proxy } as never;
      for (const options of [undefined, null, { override: () => undefined }]) {
        const classification = classify(metadata, options as never);
        const explained = explainClassification(metadata, options as never).classification;
        // Without the bad field, the rest still says rate limit (the status or the words).
        expect([field, classification.reason]).toEqual([field, 'rate_limit']);
        expect(explained).toEqual(classification);
      }
    }
  });
});

describe('override, applied after the built-in rules', () => {
  const metadata = http(429, 'Rate limit reached');
  it('sees the built-in result', () => {
    let seen: Classification | undefined;
    classify(metadata, {
      override: (_metadata, builtIn) => {
        seen = builtIn;
        return undefined;
      },
    });
    expect(seen?.reason).toBe('rate_limit');
  });
  it('a reason string selects that row', () => {
    const classification = classify(metadata, { override: () => 'quota' });
    expectRow(classification, 'quota');
    expect(classification.overridden).toBe(true);
  });
  it('a partial classification is merged over the built-in one', () => {
    const classification = classify(metadata, { override: () => ({ retryable: false }) });
    expect(classification.reason).toBe('rate_limit');
    expect(classification.retryable).toBe(false);
    expect(classification.overridden).toBe(true);
  });
  it('a partial with a new reason starts from that row', () => {
    const classification = classify(metadata, { override: () => ({ reason: 'overloaded' }) });
    expectRow(classification, 'overloaded');
  });
  it('a throwing override is ignored', () => {
    const classification = classify(metadata, {
      override: () => {
        throw new Error('bad rule');
      },
    });
    expectRow(classification, 'rate_limit');
    expect(classification.overridden).toBe(false);
  });
  it('an invalid answer is ignored', () => {
    expect(classify(metadata, { override: () => 'not_a_reason' as never }).reason).toBe('rate_limit');
    expect(classify(metadata, { override: () => ({ httpStatus: 99 }) }).overridden).toBe(false);
    expect(classify(metadata, { override: () => 42 as never }).reason).toBe('rate_limit');
  });
});

describe('options', () => {
  const metadata = http(429, 'Rate limit reached');
  const invalidOption = (message: string) =>
    Object.assign(new TypeError(message), { code: 'ERR_INVALID_ARG_VALUE' });
  it('an unknown key is a TypeError naming it and the nearest valid one, at the call', () => {
    expect(() => classify(metadata, { idempotant: true } as never)).toThrow(
      invalidOption('unknown option "idempotant" for classify; did you mean "idempotent"?'),
    );
    expect(() => explainClassification(metadata, { overrides: {} } as never)).toThrow(
      invalidOption('unknown option "overrides" for explainClassification; did you mean "override"?'),
    );
  });
  it('a key nothing is near lists the valid ones', () => {
    expect(() => classify(metadata, { provider: 'openai' } as never)).toThrow(
      invalidOption('unknown option "provider" for classify; expected one of "override", "idempotent"'),
    );
  });
  it('every documented key is accepted, and the metadata still never makes classify throw', () => {
    const options = { override: undefined, idempotent: true };
    expect(classify(metadata, options).reason).toBe('rate_limit');
    expect(classify(null as never, options).reason).toBe('unknown');
  });
});

describe('Retry-After parsing', () => {
  const now = Date.UTC(2026, 0, 1, 0, 0, 0);
  it('retry-after-ms, in milliseconds', () => {
    expect(retryAfterFromHeaders({ 'retry-after-ms': '1500' }, now)).toBe(1.5);
  });
  it('retry-after in seconds', () => {
    expect(retryAfterFromHeaders({ 'Retry-After': '30' }, now)).toBe(30);
    expect(retryAfterFromHeaders(new Headers({ 'retry-after': '7' }), now)).toBe(7);
    expect(retryAfterFromHeaders(new Map([['Retry-After', '8']]), now)).toBe(8);
    expect(retryAfterFromHeaders([['retry-after', '9']], now)).toBe(9);
  });
  it('retry-after as an HTTP date, against a fixed now', () => {
    expect(retryAfterFromHeaders({ 'retry-after': 'Thu, 01 Jan 2026 00:01:30 GMT' }, now)).toBe(90);
    expect(parseRetryAfterValue('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10);
  });
  it('an HTTP date in the past is no wait', () => {
    expect(parseRetryAfterValue('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });
  it('the order: retry-after-ms, then retry-after, then the reset headers', () => {
    expect(
      retryAfterFromHeaders(
        { 'retry-after-ms': '250', 'retry-after': '30', 'x-ratelimit-reset-requests': '6m0s' },
        now,
      ),
    ).toBe(0.25);
    expect(retryAfterFromHeaders({ 'retry-after': '30', 'x-ratelimit-reset-requests': '6m0s' }, now)).toBe(
      30,
    );
  });
  it('Gemini RetryInfo durations', () => {
    expect(parseDurationSeconds('13s')).toBe(13);
    expect(parseDurationSeconds('1.5s')).toBe(1.5);
    expect(parseDurationSeconds('0.25s')).toBe(0.25);
    expect(parseDurationSeconds('1h2m3s')).toBe(3723);
    expect(parseDurationSeconds('250ms')).toBe(0.25);
  });
  it('x-amz-retry-after, in milliseconds, after retry-after', () => {
    expect(retryAfterFromHeaders({ 'x-amz-retry-after': '2500' }, now)).toBe(2.5);
    expect(retryAfterFromHeaders({ 'retry-after': '4', 'x-amz-retry-after': '2500' }, now)).toBe(4);
  });
  it('rate-limit reset headers', () => {
    expect(
      retryAfterFromHeaders({ 'x-ratelimit-reset-requests': '1s', 'x-ratelimit-reset-tokens': '6m0s' }, now),
    ).toBe(360);
    expect(retryAfterFromHeaders({ 'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:45Z' }, now)).toBe(
      45,
    );
    expect(retryAfterFromHeaders({ 'ratelimit-reset': '12' }, now)).toBe(12);
    expect(retryAfterFromHeaders({ 'x-ratelimit-reset': String(now / 1000 + 20) }, now)).toBe(20);
  });
  it('garbage gives nothing', () => {
    for (const value of ['soon', '', '  ', 'NaN', '1e999x', '12 seconds', 'Thirsday']) {
      expect(parseRetryAfterValue(value, now), value).toBeUndefined();
    }
    expect(parseDurationSeconds('13 s')).toBeUndefined();
    expect(parseDurationSeconds('s13')).toBeUndefined();
    expect(retryAfterFromHeaders({ 'retry-after': 'later' }, now)).toBeUndefined();
    expect(retryAfterFromHeaders(null, now)).toBeUndefined();
    expect(retryAfterFromHeaders('retry-after: 5', now)).toBeUndefined();
  });
  it('negatives are no wait', () => {
    expect(parseRetryAfterValue('-5', now)).toBe(0);
  });
  it('huge values are clamped', () => {
    expect(parseRetryAfterValue('99999999999', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(retryAfterFromHeaders({ 'retry-after-ms': '999999999999999' }, now)).toBe(MAX_RETRY_AFTER_SECONDS);
  });
  it("waits in the provider's words", () => {
    expect(waitFromText('Please try again in 20s.')).toBe(20);
    expect(waitFromText('Please try again in 1m30s.')).toBe(90);
    expect(waitFromText('Please try again in 450ms.')).toBe(0.45);
    expect(waitFromText('Please retry after 60 seconds')).toBe(60);
    expect(waitFromText('no wait here')).toBeUndefined();
  });
  it('adds up every amount with a unit, and passes over a number with no word after it whole', () => {
    expect(waitFromText('Try again in 2h 14m.')).toBe(8040);
    expect(waitFromText('Retry in 26.028202s')).toBe(26.028202);
    expect(waitFromText('Retry in 1 minute and 30 SECONDS')).toBe(90);
    // The words the vocabulary found, read: "1.2" has no unit, so the reading goes on after it,
    // at "3ms" (not at "2.3ms"); a word that is not a unit adds nothing.
    expect(secondsOf('1.2.3ms')).toBe(0.003);
    expect(secondsOf('5 days or 7s')).toBe(7);
    expect(secondsOf('5 days')).toBeUndefined();
  });
  it('a 429 takes the wait from its text when no header gave one', () => {
    expect(classify(http(429, 'Rate limit reached. Please try again in 20s.')).retryAfterSeconds).toBe(20);
  });
  it('a header wait beats the text', () => {
    expect(classify(http(429, 'Please try again in 20s.', { retryAfterSeconds: 3 })).retryAfterSeconds).toBe(
      3,
    );
  });
});

describe('an extractor that crashes', () => {
  it('is reported to onExtractorCrash listeners and reads as faultline’s own local_bug, never unknown', () => {
    const seen: unknown[] = [];
    const stop = onExtractorCrash((crash) => seen.push(crash));
    const bug = new TypeError("Cannot read properties of undefined (reading 'error')");
    const broken = defineExtractor({
      provider: 'acme',
      extract() {
        throw bug;
      },
    });
    const metadata = broken.extract(new Error('a provider failure'));
    stop();
    // The repository's test setup records every crash and fails the test unless it is taken.
    const recorded = (globalThis as Record<symbol, unknown[] | undefined>)[
      Symbol.for('faultline.extractorCrashes')
    ];
    expect(recorded?.splice(0)).toEqual([{ provider: 'acme', thrown: bug }]);
    expect(seen).toEqual([{ provider: 'acme', thrown: bug }]);
    expect(metadata).toMatchObject({
      provider: 'acme',
      origin: 'local',
      sdkErrorType: 'FaultlineExtractorCrash',
    });
    expect(classify(metadata!)).toMatchObject({
      reason: 'local_bug',
      nextStep: 'report_bug',
      retryable: false,
    });
  });
});

describe('evidence scrubbing', () => {
  it('runs the secret patterns wherever one of them could match (the pre-test misses none)', () => {
    // Lower-case text made from each pattern (fast-check generates no lookarounds or `\b`: dropped).
    const fromPatterns = SECRETS.map(([pattern]) =>
      fc.stringMatching(new RegExp(pattern.source.replace(/\\b|\(\?<?[=!][^)]*\)/g, ''))),
    );
    const around = fc.string({ maxLength: 6 });
    fc.assert(
      fc.property(around, fc.oneof(...fromPatterns), around, (before, secret, after) => {
        const text = `${before}${secret}${after}`;
        if (
          SECRETS.some(([pattern]) => new RegExp(pattern.source, pattern.flags.replace('g', '')).test(text))
        )
          expect(MAY_HOLD_SECRET.test(text), text).toBe(true);
      }),
      { numRuns: 5_000 },
    );
    expect(evidenceOf('rejected: hf-abcdefgh1234')).toBe('rejected: [redacted]');
  });
});

describe('a rule of the table that crashes', () => {
  it('is reported to onExtractorCrash listeners with its id and reads as local_bug, never unknown', () => {
    // The throttle vocabulary's search fails (as a regex engine's can, with a RangeError): the
    // first rule that reads it crashes. The rules themselves are not touched.
    const failure = new RangeError('Maximum call stack size exceeded');
    const search = vi.spyOn(THROTTLE, 'find').mockImplementation(() => {
      throw failure;
    });
    const seen: unknown[] = [];
    const stop = onExtractorCrash((crash) => seen.push(crash));
    let result: Classification;
    try {
      result = classify(http(429, 'Rate limit reached for requests'));
    } finally {
      stop();
      search.mockRestore();
    }
    // The repository's test setup records every crash and fails the test unless it is taken.
    const recorded = (globalThis as Record<symbol, unknown[] | undefined>)[
      Symbol.for('faultline.extractorCrashes')
    ];
    const crash = { provider: 'test', thrown: failure, rule: 'throttle_vocabulary' };
    expect(recorded?.splice(0)).toEqual([crash]);
    expect(seen).toEqual([crash]);
    expect(result).toMatchObject({
      reason: 'local_bug',
      retryable: false,
      nextStep: 'report_bug',
      userAction: {
        kind: 'contact_support',
        detail: expect.stringContaining('classify rule throttle_vocabulary failed'),
      },
      decidedBy: { rule: 'throttle_vocabulary', evidence: 'rule throttle_vocabulary threw' },
    });
    // With the vocabulary working again, the same failure is a rate limit.
    expect(classify(http(429, 'Rate limit reached for requests')).reason).toBe('rate_limit');
  });
});

describe('signalAbortOrigin: who fired a signal', () => {
  it('reads real fetch aborts: the caller’s signal given to faultline, a timer, another signal', async () => {
    const server = createNetServer(() => {
      // Accepts and never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const url = `http://127.0.0.1:${port}/`;
    try {
      const caller = new AbortController();
      const callerAbort = fetch(url, { signal: caller.signal }).catch((error: unknown) => error);
      caller.abort();
      const thrownByCaller = await callerAbort;
      const thrownByTimer = await fetch(url, { signal: AbortSignal.timeout(20) }).catch(
        (error: unknown) => error,
      );
      // The caller's signal, given to faultline and fired: the caller's abort.
      expect(signalAbortOrigin(thrownByCaller, caller.signal)).toBe('abort');
      // No signal given to faultline: an AbortError is the caller's, a TimeoutError a timer's.
      expect(signalAbortOrigin(thrownByCaller, undefined)).toBe('abort');
      expect(signalAbortOrigin(thrownByTimer, undefined)).toBe('timeout');
      // A signal given to faultline that has not fired: another signal (a deadline) fired.
      expect(signalAbortOrigin(thrownByCaller, new AbortController().signal)).toBe('timeout');
    } finally {
      server.close();
    }
  });
});
