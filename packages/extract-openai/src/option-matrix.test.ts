import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { guardOpenAIStream } from './guard-openai-stream.ts';
import { withClassifiedErrors } from './index.ts';
import { CHAT_PARAMS, chatChunk, newClient, SDKS } from './test-support.ts';

// Every documented option of withClassifiedErrors and of guardOpenAIStream, through each installed
// major of the openai SDK (Chat Completions, the API the chat scenarios record).

const completion = (finishReason: string, content: string | null) =>
  JSON.stringify({
    id: 'chatcmpl-fl1',
    object: 'chat.completion',
    created: 1763760000,
    model: 'gpt-4o-mini',
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: finishReason },
    ],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
  });

optionMatrix({
  provider: 'openai',
  sdks: SDKS,
  sdkPackage: { name: 'openai', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) => scenario.api === 'chat',
  call: (sdk, baseUrl, { signal, timeoutMs }) =>
    newClient(sdk, { baseURL: `${baseUrl}/v1`, timeout: timeoutMs }).chat.completions.create(CHAT_PARAMS, {
      ...(signal === undefined ? {} : { signal }),
    }),
  success: { api: 'chat', response: { kind: 'http', status: 200, body: completion('stop', 'Hello') } },
  // The folder's content-filter scenario is Azure's 400; a filtered 200 is what inspectResult reads.
  blockedAnswer: {
    api: 'chat',
    response: { kind: 'http', status: 200, body: completion('content_filter', null) },
  },
  withClassifiedErrors,
  stream: {
    name: 'chat.completions.create({ stream: true })',
    stalled: sseFrame([{ data: chatChunk('Hel') }, { data: chatChunk('lo') }], 'stall'),
    pathPrefix: '/v1',
    releasesRequest: true,
    open: (sdk, baseUrl, { signal, timeoutMs }) =>
      newClient(sdk, { baseURL: baseUrl, timeout: timeoutMs }).chat.completions.create(
        { ...CHAT_PARAMS, stream: true },
        { signal },
      ) as Promise<AsyncIterable<unknown>>,
    guard: (stream, options) => guardOpenAIStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
