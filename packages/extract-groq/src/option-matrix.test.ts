import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { guardGroqStream } from './guard-groq-stream.ts';
import { withClassifiedErrors } from './index.ts';
import { CHAT_PARAMS, openChatStream, SDKS } from './test-support.ts';

// Every documented option of withClassifiedErrors and of guardGroqStream, through each installed
// major of groq-sdk (Chat Completions, the API the scenarios record).

const completion = (finishReason: string, content: string) =>
  JSON.stringify({
    id: 'chatcmpl-fl1',
    object: 'chat.completion',
    created: 1732000000,
    model: CHAT_PARAMS.model,
    choices: [
      { index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: finishReason },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    x_groq: { id: 'req_01joptions' },
  });
const chunk = (content: string) =>
  JSON.stringify({
    id: 'chatcmpl-fl1',
    object: 'chat.completion.chunk',
    created: 1732000000,
    model: CHAT_PARAMS.model,
    choices: [{ index: 0, delta: { role: 'assistant', content }, logprobs: null, finish_reason: null }],
  });

optionMatrix({
  provider: 'groq',
  sdks: SDKS,
  sdkPackage: { name: 'groq-sdk', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) => scenario.api === 'chat.completions',
  call: (sdk, baseUrl, { signal, timeoutMs }) =>
    sdk
      .create(baseUrl, timeoutMs)
      .chat.completions.create(CHAT_PARAMS, signal === undefined ? {} : { signal }),
  success: {
    api: 'chat.completions',
    response: { kind: 'http', status: 200, body: completion('stop', 'Hello') },
  },
  // The folder has no filtered 200 (Groq's filter answers 200 with finish_reason content_filter).
  blockedAnswer: {
    api: 'chat.completions',
    response: { kind: 'http', status: 200, body: completion('content_filter', '') },
  },
  withClassifiedErrors,
  stream: {
    name: 'chat.completions.create({ stream: true })',
    stalled: sseFrame([{ data: chunk('Hel') }, { data: chunk('lo') }], 'stall'),
    releasesRequest: true,
    open: (sdk, baseUrl, { signal, timeoutMs }) => openChatStream(sdk, baseUrl, { signal, timeoutMs }),
    guard: (stream, options) => guardGroqStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
