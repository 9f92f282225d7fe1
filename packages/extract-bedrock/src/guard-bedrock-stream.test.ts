import { ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { FaultlineError } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenario,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, MODEL_ID } from '../test/bedrock-sdk-harness.ts';
import { guardBedrockStream } from './guard-bedrock-stream.ts';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'h2c' });
});
afterAll(async () => {
  await server?.close();
});

const ev = (type: string, payload: unknown) => ({
  headers: { ':message-type': 'event', ':event-type': type, ':content-type': 'application/json' },
  payload: JSON.stringify(payload),
});
const START = [
  ev('messageStart', { role: 'assistant' }),
  ev('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } }),
  ev('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ', world' } }),
];
const END = [
  ev('contentBlockStop', { contentBlockIndex: 0 }),
  ev('messageStop', { stopReason: 'end_turn' }),
  ev('metadata', { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 }, metrics: { latencyMs: 20 } }),
];

function streamScenario(
  messages: Array<{ headers: Record<string, string>; payload: string }>,
  ending: 'end' | 'cut' | 'stall',
): Scenario {
  return {
    id: 'bedrock/ad-hoc',
    provider: 'bedrock',
    description: 'ad hoc',
    source: 'test',
    api: 'converse-stream',
    // biome-ignore lint/suspicious/noThenProperty: the scenario format (docs/contracts.md) names this field `then`.
    response: { kind: 'aws-event-stream', messages, then: ending },
    expected: {
      category: 'unknown',
      reason: 'unknown',
      retryable: false,
      userAction: 'unknown',
      httpStatus: 500,
    },
  };
}

async function* emptyStream(): AsyncGenerator<never> {}

interface Read {
  events: string[];
  error: unknown;
}

async function readGuarded(
  scenario: Scenario,
  options: { signal?: AbortSignal; abortAfterMs?: number } = {},
) {
  const client = clientFor(server.baseUrlFor(scenario));
  const read: Read = { events: [], error: undefined };
  const controller = new AbortController();
  const signal = options.signal ?? controller.signal;
  try {
    const response = await client.send(
      new ConverseStreamCommand({
        modelId: MODEL_ID,
        messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
      }),
      { abortSignal: signal },
    );
    if (options.abortAfterMs !== undefined) setTimeout(() => controller.abort(), options.abortAfterMs);
    for await (const event of guardBedrockStream(response.stream ?? emptyStream(), {
      signal,
      model: MODEL_ID,
    })) {
      read.events.push(Object.keys(event)[0] ?? '?');
    }
  } catch (error) {
    read.error = error;
  } finally {
    client.destroy();
  }
  return read;
}

function classificationOf(error: unknown) {
  expect(FaultlineError.isInstance(error), String(error)).toBe(true);
  return (error as FaultlineError).classification;
}

describe('guardBedrockStream over the real ConverseStream', () => {
  it('passes a complete stream through untouched', async () => {
    const read = await readGuarded(streamScenario([...START, ...END], 'end'));
    expect(read.error).toBeUndefined();
    expect(read.events).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
  });

  it('an in-stream throttlingException becomes rate_limit with the delivered output', async () => {
    const read = await readGuarded(loadScenario('bedrock/converse-stream-throttling'));
    expect(classificationOf(read.error)).toMatchObject({ reason: 'rate_limit' });
    const error = read.error as FaultlineError;
    expect(error.metadata?.delivered).toEqual({ chunks: 2, characters: 'Here is the first part'.length });
    expect((error.cause as Error).name).toBe('ThrottlingException');
  });

  it('a cut mid-frame is interrupted, after the events that did arrive', async () => {
    const read = await readGuarded(loadScenario('bedrock/converse-stream-cut'));
    expect(read.events).toEqual(['messageStart', 'contentBlockDelta']);
    expect(classificationOf(read.error)).toMatchObject({ reason: 'interrupted', retryable: false });
  });

  it('a cut on a frame boundary (the SDK ends silently) is interrupted', async () => {
    const read = await readGuarded(streamScenario(START, 'cut'));
    expect(read.events).toHaveLength(3);
    expect(classificationOf(read.error)).toMatchObject({ reason: 'interrupted' });
    expect((read.error as FaultlineError).metadata?.delivered).toEqual({ chunks: 3, characters: 12 });
  });

  it('a stall ended by the SDK requestTimeout (silently) is interrupted', async () => {
    const read = await readGuarded(streamScenario(START, 'stall'));
    expect(read.events).toHaveLength(3);
    expect(classificationOf(read.error)).toMatchObject({ reason: 'interrupted' });
  });

  it("the caller's abort mid-stream (the SDK ends silently) comes back as the caller's abort", async () => {
    const read = await readGuarded(streamScenario(START, 'stall'), { abortAfterMs: 60 });
    expect(FaultlineError.isInstance(read.error)).toBe(false);
    expect((read.error as Error).name).toBe('AbortError');
  });

  it('a guardrail that intervenes mid-stream is content_policy', async () => {
    const read = await readGuarded(
      streamScenario(
        [
          ...START,
          ev('contentBlockStop', { contentBlockIndex: 0 }),
          ev('messageStop', { stopReason: 'guardrail_intervened' }),
          END[2]!,
        ],
        'end',
      ),
    );
    expect(classificationOf(read.error)).toMatchObject({ reason: 'content_policy' });
  });

  it('an answer whose metadata event was lost after messageStop still counts as complete', async () => {
    const read = await readGuarded(streamScenario([...START, ...END.slice(0, 2)], 'cut'));
    expect(read.error).toBeUndefined();
    expect(read.events.at(-1)).toBe('messageStop');
  });
});
