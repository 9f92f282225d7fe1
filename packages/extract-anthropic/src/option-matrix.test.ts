import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { clientFor, events, REQUEST, SDKS } from '../test/support.ts';
import { guardAnthropicStream } from './guard-anthropic-stream.ts';
import { withClassifiedErrors } from './index.ts';

// Every documented option of withClassifiedErrors and of guardAnthropicStream, through each
// installed major of @anthropic-ai/sdk (the Messages API, which every scenario records).

const message = JSON.stringify({
  id: 'msg_01FaultlineOptions',
  type: 'message',
  role: 'assistant',
  model: REQUEST.model,
  content: [{ type: 'text', text: 'Hello' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 1 },
});

optionMatrix({
  provider: 'anthropic',
  sdks: SDKS,
  sdkPackage: { name: '@anthropic-ai/sdk', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) => scenario.api === 'messages',
  call: (sdk, baseUrl, { signal, timeoutMs }) =>
    clientFor(sdk.Client, baseUrl, timeoutMs).messages.create(
      REQUEST,
      signal === undefined ? {} : { signal },
    ),
  success: { api: 'messages', response: { kind: 'http', status: 200, body: message } },
  withClassifiedErrors,
  stream: {
    name: 'messages.create({ stream: true })',
    stalled: sseFrame([events.messageStart, events.blockStart, events.delta('Hello')], 'stall'),
    releasesRequest: true,
    open: async (sdk, baseUrl, { signal, timeoutMs }) =>
      (await clientFor(sdk.Client, baseUrl, timeoutMs).messages.create(
        { ...REQUEST, stream: true },
        { signal },
      )) as AsyncIterable<unknown>,
    guard: (stream, options) => guardAnthropicStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
