import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { guardHuggingfaceStream, withClassifiedErrors } from './index.ts';
import { callApi, openChatStream, SDKS } from './test-support.ts';

// Every documented option of withClassifiedErrors (deadlineMs, signal, retry, idempotent,
// inspectResult) and of guardStream, through the installed @huggingface/inference (chatCompletion,
// and chatCompletionStream), against the loopback server. The SDK takes the call's signal in its
// options; it has no timeout of its own (test-support.ts adds a deadline to that signal).

const chunk = (content: string, finish: string | null) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1732000000,
    model: 'meta-llama/Llama-3.1-8B-Instruct',
    choices: [{ index: 0, delta: { role: 'assistant', content }, logprobs: null, finish_reason: finish }],
  });

optionMatrix({
  provider: 'huggingface',
  sdks: SDKS,
  sdkPackage: { name: '@huggingface/inference', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) =>
    scenario.stream !== true && (scenario.api === 'chatCompletion' || scenario.api === undefined),
  call: (sdk, baseUrl, { signal, timeoutMs }) =>
    callApi(sdk, baseUrl, 'chatCompletion', false, { signal, timeoutMs }),
  success: {
    api: 'chatCompletion',
    response: {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1732000000,
        model: 'meta-llama/Llama-3.1-8B-Instruct',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
      }),
    },
  },
  noRetryAfter:
    "@huggingface/inference's ProviderApiError keeps the status, request id and body, never the headers",
  noBlockedAnswer: 'Hugging Face withholds nothing in a 200 of its own (providers.json "lacks")',
  sdkOnlyAbortReadsAsTimeout:
    "@huggingface/inference throws fetch's own AbortError, the same any abort throws: without the signal, faultline cannot tell it was the caller's",
  withClassifiedErrors,
  stream: {
    name: 'chatCompletionStream',
    stalled: sseFrame([{ data: chunk('Hel', null) }, { data: chunk('lo', null) }], 'stall'),
    open: async (sdk, baseUrl, { signal, timeoutMs }) => openChatStream(sdk, baseUrl, { signal, timeoutMs }),
    guard: (stream, options) => guardHuggingfaceStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
