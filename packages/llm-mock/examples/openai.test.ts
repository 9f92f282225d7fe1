// Testing an app built on the openai SDK: what does it do on a 429 with Retry-After, on a bad
// key, on a stream cut mid-answer? The app here is three lines; yours is imported instead.
import { assertClientBehaviour, fault, type MockProvider, startMockProvider } from '@faultline/llm-mock';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

/** The app under test: the openai SDK with its own retries (2, the default). */
function createApp(baseURL: string) {
  const client = new OpenAI({ apiKey: 'sk-test', baseURL, timeout: 5_000 });
  return {
    async answer(question: string): Promise<string> {
      const completion = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: question }],
      });
      return completion.choices[0]?.message.content ?? '';
    },
  };
}

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ providers: ['openai'] });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

it('rides out two 429s, waiting the Retry-After the provider asked for', async () => {
  mock.script('openai', [fault.status(429, { retryAfter: 1, times: 2 }), fault.ok({ reply: 'Paris.' })]);
  const app = createApp(mock.url('openai'));
  expect(await app.answer('Capital of France?')).toBe('Paris.');
  expect(mock.requests()).toHaveLength(3);
  assertClientBehaviour(mock); // throws, with a diff-style message, if the SDK had not waited
});

it('does not retry a bad key', async () => {
  mock.script('openai', [fault.scenario('openai/invalid-api-key')]);
  const app = createApp(mock.url('openai'));
  await expect(app.answer('Hello?')).rejects.toThrow(/Incorrect API key/);
  assertClientBehaviour(mock);
});

it('surfaces a stream cut after two chunks as an error, not as a short answer', async () => {
  mock.script('openai', [fault.streamCut(2)]);
  const client = new OpenAI({ apiKey: 'sk-test', baseURL: mock.url('openai'), maxRetries: 0 });
  const stream = await client.chat.completions.create({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: 'Tell me a story.' }],
    stream: true,
  });
  const read = async () => {
    for await (const _chunk of stream) {
      // a real app would render the chunk
    }
  };
  await expect(read()).rejects.toThrow();
  assertClientBehaviour(mock, { allow: ['gave-up-on-transient-failure'] });
});
