import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { BEDROCK_MODEL, bedrockClientFor, VERTEX_MODEL, vertexClientFor } from '../test/platform-support.ts';
import { events, REQUEST } from '../test/support.ts';
import { guardAnthropicStream } from './guard-anthropic-stream.ts';
import { withClassifiedErrors } from './index.ts';

// Every documented option of withClassifiedErrors and of the stream guard, through AnthropicVertex
// and AnthropicBedrock: the Messages API scenarios (Anthropic's own answers, which both platforms
// pass through), at each client's URL shape. Their platform-only failures are in
// platform-clients.test.ts.

const packageDir = new URL('..', import.meta.url).pathname;

const message = (model: string) =>
  JSON.stringify({
    id: 'msg_01FaultlinePlatformOptions',
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: 'Hello' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1 },
  });

const reportOf = (error: unknown) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined);

optionMatrix({
  provider: 'anthropic',
  sdks: [{ alias: '@anthropic-ai/vertex-sdk' }],
  sdkPackage: { name: '@anthropic-ai/vertex-sdk', packageDir },
  plays: (scenario) => scenario.api === 'messages',
  call: (_sdk, baseUrl, { signal, timeoutMs }) =>
    vertexClientFor(baseUrl, timeoutMs).messages.create(
      { ...REQUEST, model: VERTEX_MODEL },
      signal === undefined ? {} : { signal },
    ),
  success: { api: 'messages', response: { kind: 'http', status: 200, body: message(VERTEX_MODEL) } },
  withClassifiedErrors,
  stream: {
    name: 'AnthropicVertex messages.create({ stream: true }) (streamRawPredict)',
    stalled: sseFrame([events.messageStart, events.blockStart, events.delta('Hello')], 'stall'),
    releasesRequest: true,
    open: async (_sdk, baseUrl, { signal, timeoutMs }) =>
      (await vertexClientFor(baseUrl, timeoutMs).messages.create(
        { ...REQUEST, model: VERTEX_MODEL, stream: true },
        { signal },
      )) as AsyncIterable<unknown>,
    guard: (stream, options) => guardAnthropicStream(stream, options),
  },
  reportOf,
});

/** Anthropic's stream events as Bedrock frames them: each a `chunk` event carrying the event's JSON in base64. */
const bedrockChunk = (data: string) => ({
  headers: { ':message-type': 'event', ':event-type': 'chunk', ':content-type': 'application/json' },
  payload: JSON.stringify({ bytes: Buffer.from(data).toString('base64') }),
});

optionMatrix({
  provider: 'anthropic',
  sdks: [{ alias: '@anthropic-ai/bedrock-sdk' }],
  sdkPackage: { name: '@anthropic-ai/bedrock-sdk', packageDir },
  plays: (scenario) => scenario.api === 'messages',
  call: (_sdk, baseUrl, { signal, timeoutMs }) =>
    bedrockClientFor(baseUrl, timeoutMs).messages.create(
      { ...REQUEST, model: BEDROCK_MODEL },
      signal === undefined ? {} : { signal },
    ),
  success: { api: 'messages', response: { kind: 'http', status: 200, body: message(BEDROCK_MODEL) } },
  withClassifiedErrors,
  stream: {
    name: 'AnthropicBedrock messages.create({ stream: true }) (invoke-with-response-stream)',
    stalled: {
      kind: 'aws-event-stream',
      headers: { 'content-type': 'application/vnd.amazon.eventstream' },
      messages: [events.messageStart, events.blockStart, events.delta('Hello')].map((event) =>
        bedrockChunk(event.data),
      ),
      // biome-ignore lint/suspicious/noThenProperty: the scenario format's field
      then: 'stall',
    },
    releasesRequest: true,
    open: async (_sdk, baseUrl, { signal, timeoutMs }) =>
      (await bedrockClientFor(baseUrl, timeoutMs).messages.create(
        { ...REQUEST, model: BEDROCK_MODEL, stream: true },
        { signal },
      )) as AsyncIterable<unknown>,
    guard: (stream, options) => guardAnthropicStream(stream, options),
  },
  reportOf,
});
