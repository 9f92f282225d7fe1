import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { ndjsonFrame } from '@faultline/test-fixtures/stream-matrix';
import { guardOllamaStream, withClassifiedErrors } from './index.ts';
import { callApi, clientOf, SDKS } from './test-support.ts';

// Every documented option of withClassifiedErrors (deadlineMs, signal, retry, idempotent,
// inspectResult) and of guardStream, through each installed major of ollama-js (chat, the API
// most scenarios record; chat with stream: true). ollama-js takes no per-call signal or timeout:
// both reach it through the fetch its client is given (test-support.ts), as an app gives them.

const part = (content: string, done: boolean) =>
  JSON.stringify({
    model: 'llama3.2',
    created_at: '2026-11-20T10:00:00.000000Z',
    message: { role: 'assistant', content },
    done,
    ...(done ? { done_reason: 'stop', eval_count: 1 } : {}),
  });

optionMatrix({
  provider: 'ollama',
  sdks: SDKS,
  sdkPackage: { name: 'ollama', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) => scenario.stream !== true && (scenario.api === 'chat' || scenario.api === undefined),
  call: (sdk, baseUrl, { signal, timeoutMs }) =>
    callApi(clientOf(sdk, baseUrl, { timeoutMs, signal }), 'chat', false),
  success: {
    api: 'chat',
    response: { kind: 'http', status: 200, body: part('Hello', true) },
  },
  noRetryAfter: "ollama-js's ResponseError keeps the status and the body's words, no headers",
  noBlockedAnswer: 'Ollama runs no content filter (providers.json "lacks")',
  sdkOnlyAbortReadsAsTimeout:
    "ollama-js throws fetch's own AbortError, the same any abort throws: without the signal, faultline cannot tell it was the caller's",
  withClassifiedErrors,
  stream: {
    name: 'chat (stream: true)',
    stalled: ndjsonFrame([part('Hel', false), part('lo', false)], 'stall'),
    releasesRequest: true,
    open: (sdk, baseUrl, { signal, timeoutMs }) =>
      callApi(clientOf(sdk, baseUrl, { timeoutMs, signal }), 'chat', true) as Promise<AsyncIterable<unknown>>,
    guard: (stream, options) => guardOllamaStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
