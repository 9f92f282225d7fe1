import { BedrockRuntimeClient, ConverseCommand, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { eventStreamFrame } from '@faultline/test-fixtures/stream-matrix';
import { afterAll } from 'vitest';
import {
  converseEvent,
  destroyStreamClients,
  FAKE_CREDENTIALS,
  MODEL_ID,
  openConverseStream,
  SDK_ALIASES,
} from '../test/bedrock-sdk-harness.ts';
import { guardBedrockStream } from './guard-bedrock-stream.ts';
import { withClassifiedErrors } from './index.ts';

// Every documented option of withClassifiedErrors and of guardBedrockStream, through
// @aws-sdk/client-bedrock-runtime (Converse and InvokeModel, as each scenario records; the SDK's own
// retries off with maxAttempts: 1).

afterAll(() => destroyStreamClients());

const MESSAGES = [{ role: 'user' as const, content: [{ text: 'Say hello.' }] }];

async function call(
  baseUrl: string,
  api: string | undefined,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<unknown> {
  const client = new BedrockRuntimeClient({
    endpoint: baseUrl,
    region: 'us-east-1',
    credentials: FAKE_CREDENTIALS,
    maxAttempts: 1,
    requestHandler: { requestTimeout: timeoutMs },
  });
  try {
    const options = signal === undefined ? {} : { abortSignal: signal };
    if (api === 'invoke-model') {
      return await client.send(
        new InvokeModelCommand({
          modelId: MODEL_ID,
          contentType: 'application/json',
          accept: 'application/json',
          body: JSON.stringify({
            anthropic_version: 'bedrock-2023-05-31',
            max_tokens: 64,
            messages: [{ role: 'user', content: 'Say hello.' }],
          }),
        }),
        options,
      );
    }
    return await client.send(new ConverseCommand({ modelId: MODEL_ID, messages: MESSAGES }), options);
  } finally {
    client.destroy();
  }
}

const converseAnswer = JSON.stringify({
  output: { message: { role: 'assistant', content: [{ text: 'Hello' }] } },
  stopReason: 'end_turn',
  usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
  metrics: { latencyMs: 20 },
});

optionMatrix({
  provider: 'bedrock',
  sdks: SDK_ALIASES.map((alias) => ({ alias })),
  sdkPackage: {
    name: '@aws-sdk/client-bedrock-runtime',
    packageDir: new URL('..', import.meta.url).pathname,
  },
  server: { protocol: 'h2c' },
  plays: (scenario) => scenario.api === 'converse' || scenario.api === 'invoke-model',
  call: (_sdk, baseUrl, { scenario, signal, timeoutMs }) => call(baseUrl, scenario.api, signal, timeoutMs),
  success: { api: 'converse', response: { kind: 'http', status: 200, body: converseAnswer } },
  withClassifiedErrors,
  stream: {
    name: 'ConverseStream',
    stalled: eventStreamFrame(
      [
        converseEvent('messageStart', { role: 'assistant' }),
        converseEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } }),
      ],
      'stall',
    ),
    open: (_sdk, baseUrl, { signal, timeoutMs }) => openConverseStream(baseUrl, { signal, timeoutMs }),
    guard: (stream, options) => guardBedrockStream(stream, options),
  },
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
