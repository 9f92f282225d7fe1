import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { guardCohereStream, withClassifiedErrors } from './index.ts';
import { callApi, clientOf, SDKS } from './test-support.ts';

// Every documented option of withClassifiedErrors (deadlineMs, signal, retry, idempotent,
// inspectResult) and of guardStream, through each installed major of cohere-ai (the v2 client's
// chat; chatStream for the guard), the caller's signal given as the call's abortSignal.

const event = (type: string, fields: object) => ({ event: type, data: JSON.stringify({ type, ...fields }) });
const delta = (text: string) =>
  event('content-delta', { index: 0, delta: { message: { content: { text } } } });

optionMatrix({
  provider: 'cohere',
  sdks: SDKS,
  sdkPackage: { name: 'cohere-ai', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) => scenario.stream !== true && (scenario.api === 'chat' || scenario.api === undefined),
  call: (sdk, baseUrl, { signal, timeoutMs }) =>
    callApi(clientOf(sdk, baseUrl, timeoutMs), 'chat', false, { abortSignal: signal }),
  success: {
    api: 'chat',
    response: {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: '00000000-0000-0000-0000-000000000000',
        message: { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] },
        finish_reason: 'COMPLETE',
        usage: {
          billed_units: { input_tokens: 5, output_tokens: 1 },
          tokens: { input_tokens: 71, output_tokens: 1 },
        },
      }),
    },
  },
  noBlockedAnswer:
    'Cohere withholds nothing in a 200: a blocked prompt is a 498, and finish_reason is only COMPLETE, STOP_SEQUENCE, MAX_TOKENS, TOOL_CALL, ERROR or TIMEOUT (providers.json "lacks")',
  withClassifiedErrors,
  stream: {
    name: 'chatStream',
    stalled: sseFrame(
      [
        event('message-start', {
          id: '00000000-0000-0000-0000-000000000000',
          delta: { message: { role: 'assistant' } },
        }),
        delta('Hel'),
        delta('lo'),
      ],
      'stall',
    ),
    open: (sdk, baseUrl, { signal, timeoutMs }) =>
      callApi(clientOf(sdk, baseUrl, timeoutMs), 'chat', true, { abortSignal: signal }) as Promise<
        AsyncIterable<unknown>
      >,
    guard: (stream, options) => guardCohereStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
