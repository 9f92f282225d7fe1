// biome-ignore-all lint/suspicious/noThenProperty: `then` is the scenario format's field name (data, never awaited)
import type { ScenarioResponse } from './scenario.ts';

/** The providers the mock speaks, by the key the catalogue and `@faultline/extract-<key>` use. */
export const PROVIDERS = [
  'openai',
  'anthropic',
  'google-genai',
  'bedrock',
  'mistral',
  'groq',
  'ollama',
  'cohere',
  'huggingface',
  'openrouter',
] as const;
export type ProviderKey = (typeof PROVIDERS)[number];

export function isProviderKey(value: unknown): value is ProviderKey {
  return typeof value === 'string' && (PROVIDERS as readonly string[]).includes(value);
}

/** What a request asks for, read from its path and body. */
export interface RequestShape {
  /** `chat` (chat completions, messages, generateContent, Converse), `responses`, `embeddings`, `invoke`. */
  operation: 'chat' | 'responses' | 'embeddings' | 'invoke';
  stream: boolean;
  model: string;
  /** How many inputs an embeddings request carries. */
  inputs: number;
  /** OpenAI's `encoding_format: 'base64'` (the openai SDK's default). */
  base64: boolean;
}

/** How a stream ends after its content: normally, cut, stalled, or with the provider's error event. */
export type StreamEnd = 'end' | 'cut' | 'stall' | 'error';

export interface ProviderFormat {
  readonly key: ProviderKey;
  /** What the SDK's base URL adds after the server's origin (`/v1` for openai). */
  readonly sdkBasePath: string;
  /** The request's shape, or undefined when the path is not one of this provider's. */
  parse(path: string, body: unknown): RequestShape | undefined;
  /** A complete answer; a stream of `pieces` ending as asked. */
  answer(shape: RequestShape, pieces: readonly string[], end: StreamEnd): ScenarioResponse;
  /** An error answer in the provider's format for `status`. */
  error(status: number, message: string, retryAfterSeconds?: number): ScenarioResponse;
}

const created = 1_763_760_000;

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function countInputs(input: unknown): number {
  return Array.isArray(input) ? Math.max(1, input.length) : 1;
}

/** A small deterministic vector (the mock never pretends to embed meaning). */
function vector(index: number): number[] {
  return Array.from({ length: 8 }, (_, position) => Math.round(Math.sin(index + position + 1) * 1e4) / 1e4);
}

function base64Vector(index: number): string {
  return Buffer.from(new Float32Array(vector(index)).buffer).toString('base64');
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): ScenarioResponse {
  return {
    kind: 'http',
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

function sse(
  events: Array<{ event?: string; data: string }>,
  then: 'end' | 'cut' | 'stall',
  headers: Record<string, string> = {},
): ScenarioResponse {
  return { kind: 'sse', headers, events, then };
}

function retryHeaders(retryAfterSeconds: number | undefined): Record<string, string> {
  return retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
}

/** The words each provider uses for a status, for the error bodies of scripted statuses. */
const errorNames: Record<
  number,
  { openai: string; anthropic: string; google: string; bedrock: string; code?: string }
> = {
  400: {
    openai: 'invalid_request_error',
    anthropic: 'invalid_request_error',
    google: 'INVALID_ARGUMENT',
    bedrock: 'ValidationException',
  },
  401: {
    openai: 'invalid_request_error',
    anthropic: 'authentication_error',
    google: 'UNAUTHENTICATED',
    bedrock: 'UnrecognizedClientException',
    code: 'invalid_api_key',
  },
  403: {
    openai: 'invalid_request_error',
    anthropic: 'permission_error',
    google: 'PERMISSION_DENIED',
    bedrock: 'AccessDeniedException',
  },
  404: {
    openai: 'invalid_request_error',
    anthropic: 'not_found_error',
    google: 'NOT_FOUND',
    bedrock: 'ResourceNotFoundException',
  },
  408: {
    openai: 'timeout',
    anthropic: 'timeout_error',
    google: 'DEADLINE_EXCEEDED',
    bedrock: 'ModelTimeoutException',
  },
  413: {
    openai: 'invalid_request_error',
    anthropic: 'request_too_large',
    google: 'INVALID_ARGUMENT',
    bedrock: 'ValidationException',
  },
  429: {
    openai: 'requests',
    anthropic: 'rate_limit_error',
    google: 'RESOURCE_EXHAUSTED',
    bedrock: 'ThrottlingException',
    code: 'rate_limit_exceeded',
  },
  500: {
    openai: 'server_error',
    anthropic: 'api_error',
    google: 'INTERNAL',
    bedrock: 'InternalServerException',
  },
  502: {
    openai: 'server_error',
    anthropic: 'api_error',
    google: 'UNAVAILABLE',
    bedrock: 'InternalServerException',
  },
  503: {
    openai: 'server_error',
    anthropic: 'overloaded_error',
    google: 'UNAVAILABLE',
    bedrock: 'ServiceUnavailableException',
  },
  504: {
    openai: 'server_error',
    anthropic: 'api_error',
    google: 'DEADLINE_EXCEEDED',
    bedrock: 'ModelTimeoutException',
  },
  529: {
    openai: 'server_error',
    anthropic: 'overloaded_error',
    google: 'UNAVAILABLE',
    bedrock: 'ServiceUnavailableException',
  },
};

function namesFor(status: number) {
  return (
    errorNames[status] ??
    (status >= 500
      ? errorNames[500]!
      : {
          openai: 'invalid_request_error',
          anthropic: 'invalid_request_error',
          google: 'FAILED_PRECONDITION',
          bedrock: 'ValidationException',
        })
  );
}

// --- OpenAI and the OpenAI-compatible formats (Groq) -------------------------------------------

function openaiLike(key: 'openai' | 'groq', sdkBasePath: string, pathPrefix: string): ProviderFormat {
  const extra = key === 'groq' ? { x_groq: { id: 'req_llm_mock' } } : {};
  const chunk = (model: string, delta: Record<string, unknown>, finish: string | null) =>
    JSON.stringify({
      id: 'chatcmpl-llm-mock',
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...extra,
    });
  const streamError = JSON.stringify({
    error: {
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      param: null,
      code: null,
    },
  });
  return {
    key,
    sdkBasePath,
    parse(path, body) {
      const request = record(body);
      const model = typeof request.model === 'string' ? request.model : 'gpt-4o-mini';
      const stream = request.stream === true;
      const base64 = request.encoding_format === 'base64';
      const route = path.split('?')[0]!;
      if (route === `${pathPrefix}/chat/completions`)
        return { operation: 'chat', stream, model, inputs: 1, base64 };
      if (route === `${pathPrefix}/embeddings`)
        return { operation: 'embeddings', stream: false, model, inputs: countInputs(request.input), base64 };
      if (key === 'openai' && route === `${pathPrefix}/responses`)
        return { operation: 'responses', stream, model, inputs: 1, base64 };
      return undefined;
    },
    answer(shape, pieces, end) {
      const text = pieces.join('');
      if (shape.operation === 'embeddings') {
        return json(200, {
          object: 'list',
          data: Array.from({ length: shape.inputs }, (_, index) => ({
            object: 'embedding',
            index,
            embedding: shape.base64 ? base64Vector(index) : vector(index),
          })),
          model: shape.model,
          usage: { prompt_tokens: 3, total_tokens: 3 },
        });
      }
      if (shape.operation === 'responses') {
        const response = (status: string, output: unknown[]) => ({
          id: 'resp_llm_mock',
          object: 'response',
          created_at: created,
          status,
          error: null,
          incomplete_details: null,
          model: shape.model,
          output,
          parallel_tool_calls: true,
          tool_choice: 'auto',
          tools: [],
          usage: {
            input_tokens: 5,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: pieces.length,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 5 + pieces.length,
          },
        });
        const message = {
          type: 'message',
          id: 'msg_llm_mock',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text, annotations: [] }],
        };
        if (!shape.stream) return json(200, response('completed', [message]));
        let sequence = 0;
        const event = (type: string, data: Record<string, unknown>) => ({
          event: type,
          data: JSON.stringify({ type, sequence_number: sequence++, ...data }),
        });
        const events = [
          event('response.created', { response: response('in_progress', []) }),
          ...pieces.map((delta) =>
            event('response.output_text.delta', {
              item_id: 'msg_llm_mock',
              output_index: 0,
              content_index: 0,
              delta,
            }),
          ),
        ];
        if (end === 'error') return sse([...events, { event: 'error', data: streamError }], 'end');
        if (end !== 'end') return sse(events, end);
        return sse(
          [...events, event('response.completed', { response: response('completed', [message]) })],
          'end',
        );
      }
      if (!shape.stream) {
        return json(200, {
          id: 'chatcmpl-llm-mock',
          object: 'chat.completion',
          created,
          model: shape.model,
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: text, refusal: null },
              logprobs: null,
              finish_reason: 'stop',
            },
          ],
          usage: { prompt_tokens: 5, completion_tokens: pieces.length, total_tokens: 5 + pieces.length },
          ...extra,
        });
      }
      const events = pieces.map((content, index) => ({
        data: chunk(shape.model, index === 0 ? { role: 'assistant', content } : { content }, null),
      }));
      if (end === 'error') return sse([...events, { data: streamError }], 'end');
      if (end !== 'end') return sse(events, end);
      return sse([...events, { data: chunk(shape.model, {}, 'stop') }, { data: '[DONE]' }], 'end');
    },
    error(status, message, retryAfterSeconds) {
      const names = namesFor(status);
      const type = key === 'groq' && status === 429 ? 'tokens' : names.openai;
      return json(
        status,
        { error: { message, type, param: null, code: names.code ?? null } },
        { 'x-request-id': 'req_llm_mock', ...retryHeaders(retryAfterSeconds) },
      );
    },
  };
}

// --- Anthropic -------------------------------------------------------------------------------

const anthropic: ProviderFormat = {
  key: 'anthropic',
  sdkBasePath: '',
  parse(path, body) {
    const request = record(body);
    const route = path.split('?')[0]!;
    // Claude on Vertex AI (AnthropicVertex, @ai-sdk/google-vertex/anthropic): the Messages body
    // without `model`, which the path names, and `streamRawPredict` for a stream.
    const vertex = /\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/.exec(route);
    if (vertex !== null) {
      const model = decodeURIComponent(vertex[1]!);
      return { operation: 'chat', stream: vertex[2] === 'streamRawPredict', model, inputs: 1, base64: false };
    }
    if (route !== '/v1/messages') return undefined;
    const model = typeof request.model === 'string' ? request.model : 'claude-sonnet-4-5';
    return { operation: 'chat', stream: request.stream === true, model, inputs: 1, base64: false };
  },
  answer(shape, pieces, end) {
    const message = (content: unknown[], stopReason: string | null, outputTokens: number) => ({
      id: 'msg_llm_mock',
      type: 'message',
      role: 'assistant',
      model: shape.model,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: outputTokens },
    });
    const headers = { 'request-id': 'req_llm_mock' };
    if (!shape.stream) {
      return json(
        200,
        message([{ type: 'text', text: pieces.join('') }], 'end_turn', pieces.length),
        headers,
      );
    }
    const event = (type: string, data: Record<string, unknown>) => ({
      event: type,
      data: JSON.stringify({ type, ...data }),
    });
    const events = [
      event('message_start', { message: message([], null, 1) }),
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ...pieces.map((text) =>
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
      ),
    ];
    if (end === 'error') {
      return sse(
        [...events, event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } })],
        'end',
        headers,
      );
    }
    if (end !== 'end') return sse(events, end, headers);
    return sse(
      [
        ...events,
        event('content_block_stop', { index: 0 }),
        event('message_delta', {
          delta: { stop_reason: 'end_turn', stop_sequence: null },
          usage: { output_tokens: pieces.length },
        }),
        event('message_stop', {}),
      ],
      'end',
      headers,
    );
  },
  error(status, message, retryAfterSeconds) {
    return json(
      status,
      { type: 'error', error: { type: namesFor(status).anthropic, message } },
      { 'request-id': 'req_llm_mock', ...retryHeaders(retryAfterSeconds) },
    );
  },
};

// --- Google Gen AI (Gemini API and Vertex AI paths) --------------------------------------------

const googleGenai: ProviderFormat = {
  key: 'google-genai',
  sdkBasePath: '',
  parse(path) {
    const route = path.split('?')[0]!;
    const match = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(route);
    if (match === null) return undefined;
    const model = decodeURIComponent(match[1]!);
    switch (match[2]) {
      case 'generateContent':
        return { operation: 'chat', stream: false, model, inputs: 1, base64: false };
      case 'streamGenerateContent':
        return { operation: 'chat', stream: true, model, inputs: 1, base64: false };
      case 'embedContent':
        return { operation: 'embeddings', stream: false, model, inputs: 1, base64: false };
      case 'batchEmbedContents':
        return { operation: 'embeddings', stream: false, model, inputs: 2, base64: false };
      default:
        return undefined;
    }
  },
  answer(shape, pieces, end) {
    if (shape.operation === 'embeddings') {
      if (shape.inputs === 1) return json(200, { embedding: { values: vector(0) } });
      return json(200, { embeddings: [{ values: vector(0) }] });
    }
    const usageMetadata = {
      promptTokenCount: 5,
      candidatesTokenCount: pieces.length,
      totalTokenCount: 5 + pieces.length,
    };
    const candidate = (text: string, finishReason?: string) => ({
      content: { parts: [{ text }], role: 'model' },
      ...(finishReason === undefined ? {} : { finishReason }),
      index: 0,
    });
    if (!shape.stream) {
      return json(200, {
        candidates: [candidate(pieces.join(''), 'STOP')],
        usageMetadata,
        modelVersion: shape.model,
        responseId: 'resp-llm-mock',
      });
    }
    const events = pieces.map((text, index) => ({
      data: JSON.stringify({
        candidates: [candidate(text, end === 'end' && index === pieces.length - 1 ? 'STOP' : undefined)],
        usageMetadata,
        modelVersion: shape.model,
        responseId: 'resp-llm-mock',
      }),
    }));
    if (end === 'error') {
      const error = {
        error: {
          code: 503,
          message: 'The model is overloaded. Please try again later.',
          status: 'UNAVAILABLE',
        },
      };
      return sse([...events, { data: JSON.stringify(error) }], 'end');
    }
    return sse(events, end === 'end' ? 'end' : end);
  },
  error(status, message, retryAfterSeconds) {
    const details =
      retryAfterSeconds === undefined
        ? []
        : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterSeconds}s` }];
    return json(
      status,
      { error: { code: status, message, status: namesFor(status).google, details } },
      retryHeaders(retryAfterSeconds),
    );
  },
};

// --- Amazon Bedrock (Converse, ConverseStream, InvokeModel, InvokeModelWithResponseStream) -----

function eventMessage(eventType: string, payload: unknown) {
  return {
    headers: { ':message-type': 'event', ':event-type': eventType, ':content-type': 'application/json' },
    payload: JSON.stringify(payload),
  };
}

const bedrockStreamError = {
  headers: {
    ':message-type': 'exception',
    ':exception-type': 'serviceUnavailableException',
    ':content-type': 'application/json',
  },
  payload: JSON.stringify({ message: 'Bedrock is unable to process your request.' }),
};

const bedrock: ProviderFormat = {
  key: 'bedrock',
  sdkBasePath: '',
  parse(path) {
    const match = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/.exec(
      path.split('?')[0]!,
    );
    if (match === null) return undefined;
    const model = decodeURIComponent(match[1]!);
    const action = match[2]!;
    return {
      operation: action.startsWith('invoke') ? 'invoke' : 'chat',
      stream: action.endsWith('stream'),
      model,
      inputs: 1,
      base64: false,
    };
  },
  answer(shape, pieces, end) {
    const headers = { 'x-amzn-requestid': '00000000-0000-4000-8000-000000000000' };
    const text = pieces.join('');
    if (shape.operation === 'invoke') {
      // InvokeModel answers in the model's own format; the mock answers as an Anthropic model does.
      const body = {
        id: 'msg_bdrk_llm_mock',
        type: 'message',
        role: 'assistant',
        model: shape.model,
        content: [{ type: 'text', text }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 5, output_tokens: pieces.length },
      };
      if (!shape.stream) return json(200, body, headers);
      const chunk = (data: Record<string, unknown>) =>
        eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(data)).toString('base64') });
      const messages = [
        chunk({ type: 'message_start', message: { ...body, content: [], stop_reason: null } }),
        chunk({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
        ...pieces.map((piece) =>
          chunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }),
        ),
      ];
      const ending = [
        chunk({ type: 'content_block_stop', index: 0 }),
        chunk({
          type: 'message_delta',
          delta: { stop_reason: 'end_turn' },
          usage: { output_tokens: pieces.length },
        }),
        chunk({ type: 'message_stop' }),
      ];
      return eventStream(messages, ending, end, headers);
    }
    if (!shape.stream) {
      return json(
        200,
        {
          output: { message: { role: 'assistant', content: [{ text }] } },
          stopReason: 'end_turn',
          usage: { inputTokens: 5, outputTokens: pieces.length, totalTokens: 5 + pieces.length },
          metrics: { latencyMs: 1 },
        },
        headers,
      );
    }
    const messages = [
      eventMessage('messageStart', { role: 'assistant' }),
      ...pieces.map((piece) =>
        eventMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: piece } }),
      ),
    ];
    const ending = [
      eventMessage('contentBlockStop', { contentBlockIndex: 0 }),
      eventMessage('messageStop', { stopReason: 'end_turn' }),
      eventMessage('metadata', {
        usage: { inputTokens: 5, outputTokens: pieces.length, totalTokens: 5 + pieces.length },
        metrics: { latencyMs: 1 },
      }),
    ];
    return eventStream(messages, ending, end, headers);
  },
  error(status, message, retryAfterSeconds) {
    const type = namesFor(status).bedrock;
    return json(
      status,
      { message },
      {
        'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        'x-amzn-requestid': '00000000-0000-4000-8000-000000000000',
        ...retryHeaders(retryAfterSeconds),
      },
    );
  },
};

type EventMessage = ReturnType<typeof eventMessage>;

function eventStream(
  messages: EventMessage[],
  ending: EventMessage[],
  end: StreamEnd,
  headers: Record<string, string>,
): ScenarioResponse {
  if (end === 'end')
    return { kind: 'aws-event-stream', headers, messages: [...messages, ...ending], then: 'end' };
  if (end === 'error')
    return { kind: 'aws-event-stream', headers, messages: [...messages, bedrockStreamError], then: 'end' };
  if (end === 'stall') return { kind: 'aws-event-stream', headers, messages, then: 'stall' };
  // A cut on a frame boundary ends an AWS SDK stream silently: cut inside one more frame instead.
  return {
    kind: 'aws-event-stream',
    headers,
    messages: [...messages, ending[0]!],
    then: 'cut',
    cutMidMessage: true,
  };
}

// --- Mistral ---------------------------------------------------------------------------------

const mistral: ProviderFormat = {
  key: 'mistral',
  sdkBasePath: '',
  parse(path, body) {
    const request = record(body);
    const model = typeof request.model === 'string' ? request.model : 'mistral-small-latest';
    const route = path.split('?')[0]!;
    if (route === '/v1/chat/completions')
      return { operation: 'chat', stream: request.stream === true, model, inputs: 1, base64: false };
    if (route === '/v1/embeddings')
      return {
        operation: 'embeddings',
        stream: false,
        model,
        inputs: countInputs(request.inputs ?? request.input),
        base64: false,
      };
    return undefined;
  },
  answer(shape, pieces, end) {
    const usage = { prompt_tokens: 5, completion_tokens: pieces.length, total_tokens: 5 + pieces.length };
    if (shape.operation === 'embeddings') {
      return json(200, {
        id: 'embd-llm-mock',
        object: 'list',
        data: Array.from({ length: shape.inputs }, (_, index) => ({
          object: 'embedding',
          embedding: vector(index),
          index,
        })),
        model: shape.model,
        usage: { prompt_tokens: 3, total_tokens: 3, completion_tokens: 0 },
      });
    }
    if (!shape.stream) {
      return json(200, {
        id: 'cmpl-llm-mock',
        object: 'chat.completion',
        created,
        model: shape.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: pieces.join(''), tool_calls: null },
            finish_reason: 'stop',
          },
        ],
        usage,
      });
    }
    const chunk = (delta: Record<string, unknown>, finish: string | null, withUsage = false) =>
      JSON.stringify({
        id: 'cmpl-llm-mock',
        object: 'chat.completion.chunk',
        created,
        model: shape.model,
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...(withUsage ? { usage } : {}),
      });
    const events = pieces.map((content) => ({ data: chunk({ role: 'assistant', content }, null) }));
    if (end === 'error') {
      const error = {
        object: 'error',
        message: 'Service unavailable',
        type: 'internal_server_error',
        param: null,
        code: '3000',
      };
      return sse([...events, { data: JSON.stringify(error) }], 'end');
    }
    if (end !== 'end') return sse(events, end);
    return sse([...events, { data: chunk({ content: '' }, 'stop', true) }, { data: '[DONE]' }], 'end');
  },
  error(status, message, retryAfterSeconds) {
    const names = namesFor(status);
    return json(
      status,
      { object: 'error', message, type: names.openai, param: null, code: String(status) },
      retryHeaders(retryAfterSeconds),
    );
  },
};

// --- Ollama (the local server's native API: /api/chat, /api/generate, /api/embed) ---------------

function ndjson(lines: unknown[], then: 'end' | 'cut' | 'stall'): ScenarioResponse {
  return { kind: 'ndjson', lines: lines.map((line) => JSON.stringify(line)), then };
}

/**
 * Ollama answers errors as `{"error":"<words>"}` with a status (a missing model 404, an overflow or
 * a bad option 400, out of memory 500) and, once a stream has begun, as one more NDJSON line
 * `{"error":"..."}` after the 200 (ollama/ollama docs/api.md, server/routes.go).
 */
const ollama: ProviderFormat = {
  key: 'ollama',
  sdkBasePath: '',
  parse(path, body) {
    const request = record(body);
    const model = typeof request.model === 'string' ? request.model : 'llama3.2';
    // Ollama streams unless the request says `"stream": false`.
    const stream = request.stream !== false;
    switch (path.split('?')[0]) {
      case '/api/chat':
      case '/api/generate':
        return { operation: 'chat', stream, model, inputs: 1, base64: false };
      case '/api/embed':
        return {
          operation: 'embeddings',
          stream: false,
          model,
          inputs: countInputs(request.input),
          base64: false,
        };
      default:
        return undefined;
    }
  },
  answer(shape, pieces, end) {
    const createdAt = new Date(created * 1000).toISOString();
    if (shape.operation === 'embeddings') {
      return json(200, {
        model: shape.model,
        embeddings: Array.from({ length: shape.inputs }, (_, index) => vector(index)),
        total_duration: 1_000_000,
        load_duration: 1_000,
        prompt_eval_count: 3,
      });
    }
    const done = {
      done: true,
      done_reason: 'stop',
      total_duration: 1_000_000,
      load_duration: 1_000,
      prompt_eval_count: 5,
      eval_count: pieces.length,
    };
    const message = (content: string) => ({ role: 'assistant', content });
    if (!shape.stream) {
      return json(200, {
        model: shape.model,
        created_at: createdAt,
        message: message(pieces.join('')),
        ...done,
      });
    }
    const lines: unknown[] = pieces.map((content) => ({
      model: shape.model,
      created_at: createdAt,
      message: message(content),
      done: false,
    }));
    if (end === 'error') {
      return ndjson(
        [...lines, { error: 'an error was encountered while running the model: unexpected EOF' }],
        'end',
      );
    }
    if (end !== 'end') return ndjson(lines, end);
    return ndjson(
      [...lines, { model: shape.model, created_at: createdAt, message: message(''), ...done }],
      'end',
    );
  },
  error(status, message, retryAfterSeconds) {
    return json(status, { error: message }, retryHeaders(retryAfterSeconds));
  },
};

// --- Cohere (its own v2 API: /v2/chat, /v2/embed) -------------------------------------------------

/**
 * Cohere answers every failure as `{"id": "<request id>", "message": "<words>"}` with the status
 * (docs.cohere.com/v2/reference/errors). A chat stream is SSE, one event per `type` (message-start,
 * content-start, content-delta …, content-end, message-end); a generation that fails after the 200
 * ends with a `message-end` whose `finish_reason` is `ERROR` and `delta.error` says why
 * (docs.cohere.com/v2/reference/chat-stream).
 */
const cohere: ProviderFormat = {
  key: 'cohere',
  sdkBasePath: '',
  parse(path, body) {
    const request = record(body);
    const model = typeof request.model === 'string' ? request.model : 'command-a-03-2025';
    switch (path.split('?')[0]) {
      case '/v2/chat':
        return { operation: 'chat', stream: request.stream === true, model, inputs: 1, base64: false };
      case '/v2/embed':
        return {
          operation: 'embeddings',
          stream: false,
          model,
          inputs: countInputs(request.texts ?? request.inputs),
          base64: false,
        };
      default:
        return undefined;
    }
  },
  answer(shape, pieces, end) {
    const id = '00000000-0000-4000-8000-000000000000';
    const usage = {
      billed_units: { input_tokens: 5, output_tokens: pieces.length },
      tokens: { input_tokens: 71, output_tokens: pieces.length },
    };
    if (shape.operation === 'embeddings') {
      return json(200, {
        id,
        embeddings: { float: Array.from({ length: shape.inputs }, (_, index) => vector(index)) },
        texts: [],
        meta: { api_version: { version: '2' }, billed_units: { input_tokens: shape.inputs } },
        response_type: 'embeddings_by_type',
      });
    }
    if (!shape.stream) {
      return json(200, {
        id,
        message: { role: 'assistant', content: [{ type: 'text', text: pieces.join('') }] },
        finish_reason: 'COMPLETE',
        usage,
      });
    }
    const event = (type: string, fields: object) => ({
      event: type,
      data: JSON.stringify({ type, ...fields }),
    });
    const events = [
      event('message-start', {
        id,
        delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
      }),
      event('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } }),
      ...pieces.map((text) =>
        event('content-delta', { index: 0, delta: { message: { content: { text } } } }),
      ),
    ];
    if (end === 'cut' || end === 'stall') return sse(events, end);
    const closing = event('content-end', { index: 0 });
    const messageEnd =
      end === 'error'
        ? event('message-end', {
            delta: {
              error: 'internal server error, this has been reported to our developers',
              finish_reason: 'ERROR',
              usage,
            },
          })
        : event('message-end', { delta: { finish_reason: 'COMPLETE', usage } });
    return sse([...events, closing, messageEnd], 'end');
  },
  error(status, message, retryAfterSeconds) {
    return json(
      status,
      { id: '00000000-0000-4000-8000-000000000000', message },
      retryHeaders(retryAfterSeconds),
    );
  },
};

// --- Hugging Face (what @huggingface/inference calls at an endpointUrl) ----------------------------

/**
 * @huggingface/inference at an `endpointUrl` (a dedicated Inference Endpoint, text-generation-inference):
 * `chatCompletion` posts OpenAI-shaped requests to `/v1/chat/completions` (SSE chunks when streaming),
 * `textGeneration` to `/v1/completions`, `featureExtraction` to the endpoint itself. Errors are
 * Hugging Face's flat `{"error":"<words>"}` with a status (`estimated_time` for a loading model) and,
 * after a stream's 200, text-generation-inference's `{"error","error_type"}` event
 * (huggingface.js packages/inference/src/utils/request.ts; text-generation-inference router/src/server.rs).
 */
const huggingface: ProviderFormat = {
  key: 'huggingface',
  sdkBasePath: '',
  parse(path, body) {
    const request = record(body);
    const model = typeof request.model === 'string' ? request.model : 'meta-llama/Llama-3.1-8B-Instruct';
    const route = path.split('?')[0]!;
    if (route === '/v1/chat/completions')
      return { operation: 'chat', stream: request.stream === true, model, inputs: 1, base64: false };
    if (route === '/v1/completions')
      return { operation: 'invoke', stream: false, model, inputs: 1, base64: false };
    if (route === '' || route === '/')
      return {
        operation: 'embeddings',
        stream: false,
        model,
        inputs: countInputs(request.inputs),
        base64: false,
      };
    return undefined;
  },
  answer(shape, pieces, end) {
    const text = pieces.join('');
    if (shape.operation === 'embeddings') {
      return json(
        200,
        Array.from({ length: shape.inputs }, (_, index) => vector(index)),
      );
    }
    if (shape.operation === 'invoke') {
      return json(200, {
        id: 'cmpl-llm-mock',
        object: 'text_completion',
        created,
        model: shape.model,
        choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }],
      });
    }
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      JSON.stringify({
        id: 'chatcmpl-llm-mock',
        object: 'chat.completion.chunk',
        created,
        model: shape.model,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      });
    if (!shape.stream) {
      return json(200, {
        id: 'chatcmpl-llm-mock',
        object: 'chat.completion',
        created,
        model: shape.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 5, completion_tokens: pieces.length, total_tokens: 5 + pieces.length },
      });
    }
    const events = pieces.map((content) => ({ data: chunk({ role: 'assistant', content }, null) }));
    if (end === 'error') {
      const error = {
        error: 'Request failed during generation: Server error: CUDA out of memory',
        error_type: 'generation',
      };
      return sse([...events, { data: JSON.stringify(error) }], 'end', {
        'content-type': 'text/event-stream',
      });
    }
    if (end !== 'end') return sse(events, end, { 'content-type': 'text/event-stream' });
    return sse([...events, { data: chunk({}, 'stop') }, { data: '[DONE]' }], 'end', {
      'content-type': 'text/event-stream',
    });
  },
  error(status, message, retryAfterSeconds) {
    return json(status, { error: message }, retryHeaders(retryAfterSeconds));
  },
};

// --- OpenRouter (its own API at /api/v1, what @openrouter/sdk and OpenAI-compatible clients call) ---

/**
 * OpenRouter answers errors as `{"error": {"code": <status>, "message", "metadata"?}}` with that
 * status, and a failure after a stream's 200 as one more chunk carrying `error` (its code the
 * upstream's status, `metadata.error_type`) and `finish_reason: "error"`
 * (openrouter.ai/docs/api/reference/errors-and-debugging). A chat result carries
 * `system_fingerprint` (null) and `provider`, which @openrouter/sdk requires or reads.
 */
const openrouter: ProviderFormat = {
  key: 'openrouter',
  sdkBasePath: '/api/v1',
  parse(path, body) {
    const request = record(body);
    const model = typeof request.model === 'string' ? request.model : 'openai/gpt-4o-mini';
    const route = path.split('?')[0]!;
    if (route === '/api/v1/chat/completions')
      return { operation: 'chat', stream: request.stream === true, model, inputs: 1, base64: false };
    if (route === '/api/v1/embeddings')
      return {
        operation: 'embeddings',
        stream: false,
        model,
        inputs: countInputs(request.input),
        base64: request.encoding_format === 'base64',
      };
    return undefined;
  },
  answer(shape, pieces, end) {
    const text = pieces.join('');
    const usage = { prompt_tokens: 5, completion_tokens: pieces.length, total_tokens: 5 + pieces.length };
    if (shape.operation === 'embeddings') {
      return json(200, {
        id: 'gen-llm-mock',
        object: 'list',
        data: Array.from({ length: shape.inputs }, (_, index) => ({
          object: 'embedding',
          index,
          embedding: shape.base64 ? base64Vector(index) : vector(index),
        })),
        model: shape.model,
        usage: { prompt_tokens: 3, total_tokens: 3 },
      });
    }
    if (!shape.stream) {
      return json(200, {
        id: 'gen-llm-mock',
        provider: 'llm-mock',
        model: shape.model,
        object: 'chat.completion',
        created,
        system_fingerprint: null,
        choices: [
          {
            index: 0,
            logprobs: null,
            finish_reason: 'stop',
            native_finish_reason: 'stop',
            message: { role: 'assistant', content: text, refusal: null, reasoning: null },
          },
        ],
        usage,
      });
    }
    const chunk = (delta: Record<string, unknown>, finish: string | null, extra: object = {}) =>
      JSON.stringify({
        id: 'gen-llm-mock',
        provider: 'llm-mock',
        model: shape.model,
        object: 'chat.completion.chunk',
        created,
        choices: [{ index: 0, delta, finish_reason: finish, native_finish_reason: finish }],
        ...extra,
      });
    const events = pieces.map((content) => ({ data: chunk({ role: 'assistant', content }, null) }));
    if (end === 'error') {
      const error = {
        code: 502,
        message: 'Provider returned error',
        metadata: { error_type: 'provider_unavailable' },
      };
      return sse(
        [...events, { data: chunk({ content: '' }, 'error', { error }) }, { data: '[DONE]' }],
        'end',
        {
          'content-type': 'text/event-stream',
        },
      );
    }
    if (end !== 'end') return sse(events, end, { 'content-type': 'text/event-stream' });
    return sse([...events, { data: chunk({}, 'stop', { usage }) }, { data: '[DONE]' }], 'end', {
      'content-type': 'text/event-stream',
    });
  },
  error(status, message, retryAfterSeconds) {
    return json(status, { error: { code: status, message } }, retryHeaders(retryAfterSeconds));
  },
};

const formats: Record<ProviderKey, ProviderFormat> = {
  openai: openaiLike('openai', '/v1', '/v1'),
  groq: openaiLike('groq', '', '/openai/v1'),
  anthropic,
  'google-genai': googleGenai,
  bedrock,
  mistral,
  ollama,
  cohere,
  huggingface,
  openrouter,
};

export function providerFormat(key: ProviderKey): ProviderFormat {
  return formats[key];
}

/** The default message of a scripted status, in words a person would expect. */
export function defaultMessage(status: number): string {
  switch (status) {
    case 400:
      return 'Invalid request (scripted by llm-mock).';
    case 401:
      return 'Incorrect API key provided (scripted by llm-mock).';
    case 403:
      return 'Permission denied (scripted by llm-mock).';
    case 404:
      return 'The model does not exist (scripted by llm-mock).';
    case 429:
      return 'Rate limit reached for requests per min (RPM) (scripted by llm-mock).';
    case 503:
    case 529:
      return 'The service is overloaded (scripted by llm-mock).';
    default:
      return status >= 500
        ? 'The server had an error (scripted by llm-mock).'
        : `Error ${status} (scripted by llm-mock).`;
  }
}
