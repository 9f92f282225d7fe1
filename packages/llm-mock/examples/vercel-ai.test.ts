// Testing an app built on the Vercel AI SDK (`ai` + `@ai-sdk/openai`), pointed at the mock
// through the provider's `baseURL`.
import { createOpenAI } from '@ai-sdk/openai';
import { fault, type MockProvider, startMockProvider, verdict } from '@faultline/llm-mock';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ providers: ['openai'], reply: 'Hi there.' });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const model = () => createOpenAI({ apiKey: 'sk-test', baseURL: mock.url('openai') }).chat('gpt-4o-mini');

it('generateText retries a 429 and honours its Retry-After', async () => {
  mock.script('openai', [fault.status(429, { retryAfter: 1 }), fault.ok()]);
  const { text } = await generateText({ model: model(), prompt: 'Say hi.', maxRetries: 2 });
  expect(text).toBe('Hi there.');
  expect(verdict(mock).findings).toEqual([]);
});

it('generateText does not retry a context overflow', async () => {
  mock.script('openai', [fault.scenario('openai/context-length-exceeded')]);
  await expect(
    generateText({ model: model(), prompt: 'A very long prompt.', maxRetries: 2 }),
  ).rejects.toThrow(/maximum context length/);
  expect(verdict(mock).ok).toBe(true);
});

it('streamText throws when the stream is cut after the first chunk', async () => {
  mock.script('openai', [fault.streamCut(1)]);
  const result = streamText({ model: model(), prompt: 'Say hi.', onError: () => {} });
  let text = '';
  const read = async () => {
    for await (const delta of result.textStream) text += delta;
  };
  await expect(read()).rejects.toThrow(/Failed to process successful response/);
  expect(text).toBe('Hi');
});
