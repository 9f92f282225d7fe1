import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { HTTPClient, Mistral } from '@mistralai/mistralai';
import { HTTPClient as HTTPClientV1, Mistral as MistralV1 } from 'mistralai-v1';
import { guardMistralStream } from './guard-mistral-stream.ts';
import { withClassifiedErrors } from './index.ts';

// Every documented option of withClassifiedErrors and of guardMistralStream, through each installed
// major of @mistralai/mistralai (chat.complete, the API the scenarios record; chat.stream).

const SDKS = [
  { alias: '@mistralai/mistralai', Mistral, HTTPClient },
  {
    alias: 'mistralai-v1',
    Mistral: MistralV1 as unknown as typeof Mistral,
    HTTPClient: HTTPClientV1 as unknown as typeof HTTPClient,
  },
] as const;
type Sdk = (typeof SDKS)[number];

interface ChatClient {
  chat: {
    complete(request: object, options: object): Promise<unknown>;
    stream(request: object, options: object): Promise<AsyncIterable<unknown>>;
  };
}
// No retries: neither major retries unless `retryConfig` is given. The client is built as the
// README recommends: its fetcher hands fetch the call's signal itself, since the SDK fetches a clone
// of its Request, which Node's fetch stops following after a garbage collection.
const clientOf = (sdk: Sdk, serverURL: string, timeoutMs: number, signal?: AbortSignal) => {
  const fetcher = (input: RequestInfo | URL, init?: RequestInit) =>
    fetch(input, signal === undefined ? init : { ...init, signal });
  const httpClient = new sdk.HTTPClient({ fetcher });
  return new sdk.Mistral({ apiKey: 'test-key', serverURL, timeoutMs, httpClient }) as unknown as ChatClient;
};
const REQUEST = { model: 'mistral-small-latest', messages: [{ role: 'user', content: 'hello' }] };

const completion = (finishReason: string, content: string) =>
  JSON.stringify({
    id: 'cmpl-1',
    object: 'chat.completion',
    created: 1732000000,
    model: REQUEST.model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  });
const chunk = (content: string) =>
  JSON.stringify({
    id: 'cmpl-1',
    object: 'chat.completion.chunk',
    created: 1732000000,
    model: REQUEST.model,
    choices: [{ index: 0, delta: { role: 'assistant', content }, finish_reason: null }],
  });

optionMatrix({
  provider: 'mistral',
  sdks: SDKS,
  sdkPackage: { name: '@mistralai/mistralai', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) => scenario.api === 'chat.complete',
  // Both majors take RequestInit fields (the signal) flat in the request options.
  call: (sdk, baseUrl, { signal, timeoutMs }) =>
    clientOf(sdk, baseUrl, timeoutMs, signal).chat.complete(REQUEST, {
      timeoutMs,
      ...(signal === undefined ? {} : { signal }),
    }),
  success: {
    api: 'chat.complete',
    response: { kind: 'http', status: 200, body: completion('stop', 'Hello') },
  },
  // The folder has no filtered 200 (the API answers 200 with finish_reason content_filter).
  blockedAnswer: {
    api: 'chat.complete',
    response: { kind: 'http', status: 200, body: completion('content_filter', '') },
  },
  withClassifiedErrors,
  stream: {
    name: 'chat.stream',
    releasesRequest: true,
    stalled: sseFrame([{ data: chunk('Hel') }, { data: chunk('lo') }], 'stall'),
    open: (sdk, baseUrl, { signal, timeoutMs }) =>
      clientOf(sdk, baseUrl, timeoutMs, signal).chat.stream(REQUEST, { timeoutMs, signal }),
    guard: (stream, options) => guardMistralStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
