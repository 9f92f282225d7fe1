import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { guardOpenRouterStream, withClassifiedErrors } from './index.ts';
import { callSdk, chatChunk, chatResult, clientOf, SDKS } from './test-support.ts';

// Every documented option of withClassifiedErrors (deadlineMs, signal, retry, idempotent,
// inspectResult) and of guardStream, through each installed major of the REAL @openrouter/sdk
// (chat.send; streamed for the guard) against the loopback server (test-fixtures/src/option-matrix.ts).

const REQUEST = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hello' }] };

optionMatrix({
  provider: 'openrouter',
  sdks: SDKS,
  sdkPackage: { name: '@openrouter/sdk', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) => scenario.stream !== true,
  call: (sdk, baseUrl, { scenario, signal, timeoutMs }) =>
    callSdk(sdk, baseUrl, { api: scenario.api, stream: false, signal, timeoutMs }),
  success: {
    api: 'chat',
    response: {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: chatResult('stop', 'Hello'),
    },
  },
  // The folder has no filtered 200: OpenRouter passes an upstream's content_filter finish through.
  blockedAnswer: {
    api: 'chat',
    response: {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: chatResult('content_filter', ''),
    },
  },
  withClassifiedErrors,
  stream: {
    name: 'chat.send (stream)',
    releasesRequest: true,
    stalled: sseFrame([{ data: chatChunk('Hel') }, { data: chatChunk('lo') }], 'stall'),
    open: (sdk, baseUrl, { signal, timeoutMs }) =>
      clientOf(sdk, baseUrl, timeoutMs).chat.send(
        { chatRequest: { ...REQUEST, stream: true } },
        signal === undefined ? {} : { signal },
      ) as Promise<AsyncIterable<unknown>>,
    guard: (stream, options) => guardOpenRouterStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
