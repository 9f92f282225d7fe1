/** One scenario the template can produce, with the classification the taxonomy gives it. */
export interface ScenarioTemplate {
  readonly file: string;
  readonly description: string;
  readonly response: Record<string, unknown>;
  readonly expected: Record<string, unknown>;
  readonly demo?: string;
}

const json = (value: unknown): string => JSON.stringify(value);
const errorBody = (message: string, type: string, code?: string): string =>
  json({ error: { message, type, ...(code === undefined ? {} : { code }) } });
const requestId = { 'x-request-id': 'req_faultline_template_0001' };

const transient = (reason: string, httpStatus: number) => ({
  category: 'transient',
  reason,
  retryable: true,
  userAction: 'wait_and_retry',
  httpStatus,
});
const configuration = (reason: string, userAction: string) => ({
  category: 'configuration',
  reason,
  retryable: false,
  userAction,
  httpStatus: 500,
});
const capacity = (reason: string) => ({
  category: 'capacity',
  reason,
  retryable: false,
  userAction: 'check_billing',
  httpStatus: 500,
});
const content = (reason: string) => ({
  category: 'content',
  reason,
  retryable: false,
  userAction: 'change_input',
  httpStatus: 422,
});

/**
 * One scenario per taxonomy reason the template's client and generic JSON error body can
 * produce. `local_bug` (never a provider's) and `unknown` (the client throws only on a non-2xx
 * answer or no answer, and each maps to a row) go to `_coverage.json`.
 */
export function scenarioTemplates(title: string, name: string): ScenarioTemplate[] {
  return [
    {
      file: 'rate-limit',
      description: `429 with Retry-After: ${title} is rate limiting the key (per-minute limit)`,
      response: {
        kind: 'http',
        status: 429,
        headers: { ...requestId, 'retry-after': '7' },
        body: errorBody(
          'Rate limit reached for requests per minute. Please try again in 7s.',
          'rate_limit_error',
          'rate_limit_exceeded',
        ),
      },
      expected: {
        ...transient('rate_limit', 429),
        retryAfterSeconds: 7,
        statusCode: 429,
        providerCode: 'rate_limit_exceeded',
      },
      demo: 'rate limit',
    },
    {
      file: 'quota-daily',
      description: '429 naming a daily allowance: waiting minutes will not help',
      response: {
        kind: 'http',
        status: 429,
        headers: requestId,
        body: errorBody(
          'You have used your daily token allowance (tokens per day). It resets at 00:00 UTC.',
          'quota_error',
          'daily_limit_exceeded',
        ),
      },
      expected: { ...capacity('quota'), statusCode: 429 },
    },
    {
      file: 'billing-402',
      description: '402: the account cannot pay',
      response: {
        kind: 'http',
        status: 402,
        headers: requestId,
        body: errorBody('Payment required: add credits to continue.', 'billing_error'),
      },
      expected: { ...capacity('billing'), statusCode: 402 },
    },
    {
      file: 'overloaded-503',
      description: '503: the service is overloaded',
      response: {
        kind: 'http',
        status: 503,
        headers: requestId,
        body: errorBody('The service is overloaded. Please retry shortly.', 'overloaded_error'),
      },
      expected: { ...transient('overloaded', 503), statusCode: 503 },
    },
    {
      file: 'server-error-500',
      description: '500: the provider failed on its side',
      response: {
        kind: 'http',
        status: 500,
        headers: requestId,
        body: errorBody('The server had an error while processing your request.', 'server_error'),
      },
      expected: { ...transient('server_error', 503), statusCode: 500 },
    },
    {
      file: 'invalid-api-key',
      description: '401: the key was rejected',
      response: {
        kind: 'http',
        status: 401,
        headers: requestId,
        body: errorBody('Invalid API key provided.', 'authentication_error', 'invalid_api_key'),
      },
      expected: {
        ...configuration('auth', 'check_credentials'),
        statusCode: 401,
        providerCode: 'invalid_api_key',
      },
    },
    {
      file: 'permission-denied',
      description: '403: the key is valid but may not use this resource',
      response: {
        kind: 'http',
        status: 403,
        headers: requestId,
        body: errorBody('This key may not use the requested resource.', 'permission_error'),
      },
      expected: { ...configuration('permission', 'check_credentials'), statusCode: 403 },
    },
    {
      file: 'model-not-found',
      description: '404 naming a model that does not exist',
      response: {
        kind: 'http',
        status: 404,
        headers: requestId,
        body: errorBody(
          `The model \`${name}-model\` does not exist or you do not have access to it.`,
          'invalid_request_error',
          'model_not_found',
        ),
      },
      expected: {
        ...configuration('model_not_found', 'change_model'),
        statusCode: 404,
        providerCode: 'model_not_found',
      },
    },
    {
      file: 'html-not-found',
      description: 'a bare HTML 404 (wrong path or base URL, a proxy)',
      response: {
        kind: 'http',
        status: 404,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: '<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>',
      },
      expected: { ...configuration('not_found', 'check_configuration'), statusCode: 404 },
    },
    {
      file: 'context-length-exceeded',
      description: '400: the input does not fit the context window',
      response: {
        kind: 'http',
        status: 400,
        headers: requestId,
        body: errorBody(
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
          'invalid_request_error',
          'context_length_exceeded',
        ),
      },
      expected: { ...content('context_overflow'), statusCode: 400, providerCode: 'context_length_exceeded' },
    },
    {
      file: 'content-policy',
      description: '400: the input was refused by the content policy',
      response: {
        kind: 'http',
        status: 400,
        headers: requestId,
        body: errorBody(
          'Your request was rejected because it violates our usage policy.',
          'invalid_request_error',
          'content_policy_violation',
        ),
      },
      expected: { ...content('content_policy'), statusCode: 400 },
    },
    {
      file: 'invalid-request',
      description: '422: the request was malformed',
      response: {
        kind: 'http',
        status: 422,
        headers: requestId,
        body: errorBody('messages: field required', 'invalid_request_error'),
      },
      expected: { ...content('invalid_request'), statusCode: 422 },
    },
    {
      file: 'unsupported-media',
      description: '415: the provider cannot take this media',
      response: {
        kind: 'http',
        status: 415,
        headers: requestId,
        body: errorBody('Unsupported media type: image/bmp', 'invalid_request_error'),
      },
      expected: { ...content('unsupported_media'), statusCode: 415 },
    },
    {
      file: 'never-answer',
      description: 'the server accepts the request and never answers: the client times out',
      response: { kind: 'socket', behaviour: 'never-answer' },
      expected: transient('timeout', 503),
    },
    {
      file: 'connection-refused',
      description: 'nothing listens on the port',
      response: { kind: 'socket', behaviour: 'refuse' },
      expected: transient('connection', 503),
    },
    {
      file: 'reset-after-request',
      description: 'the connection is dropped after the request was written',
      response: { kind: 'socket', behaviour: 'reset-after-request' },
      expected: {
        category: 'ambiguous',
        reason: 'interrupted',
        retryable: false,
        userAction: 'wait_and_retry',
        httpStatus: 502,
      },
    },
    {
      file: 'dns-failure',
      description: 'the configured host does not resolve',
      response: { kind: 'dns-failure' },
      expected: configuration('endpoint', 'check_configuration'),
    },
  ];
}

/** What the template can never produce, and why (packages/llm-mock/scenarios/<name>/_coverage.json). */
export function cannotHappenTemplate(title: string): Record<string, string> {
  return {
    local_bug: `A TypeError or ReferenceError comes from the caller's own code, never from ${title}; render's built-in extractor classifies it.`,
    cancelled:
      "The caller's own abort is decided in render by who fired the signal, never by a provider response; the option matrix covers it for every SDK major.",
    unknown:
      'The client throws only for a non-2xx answer (read by its status and body) or for no answer (read from the transport cause), and each maps to a taxonomy row.',
  };
}
