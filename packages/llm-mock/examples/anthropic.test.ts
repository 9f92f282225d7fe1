// Testing an app built on @anthropic-ai/sdk: Anthropic overloaded (529) before the answer, and
// overloaded mid-stream after the user has already seen part of it.
import Anthropic from '@anthropic-ai/sdk';
import {
  assertClientBehaviour,
  fault,
  type MockProvider,
  startMockProvider,
  verdict,
} from '@faultline/llm-mock';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ providers: ['anthropic'], reply: 'Here is the plan.' });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

it('retries an overloaded Anthropic (the SDK retries 529 by itself)', async () => {
  mock.script('anthropic', [fault.scenario('anthropic/overloaded'), fault.ok()]);
  const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: mock.url('anthropic'), maxRetries: 2 });
  const message = await client.messages.create({
    model: 'claude-sonnet-4-6',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'Plan my day.' }],
  });
  expect(message.content).toEqual([{ type: 'text', text: 'Here is the plan.' }]);
  assertClientBehaviour(mock);
});

it('does not re-send a stream that failed after output was shown', async () => {
  mock.script('anthropic', [fault.streamError(2), fault.ok()]);
  const client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: mock.url('anthropic'), maxRetries: 2 });
  let shown = '';
  const stream = client.messages.stream({
    model: 'claude-sonnet-4-6',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'Plan my day.' }],
  });
  stream.on('text', (text) => {
    shown += text;
  });
  await expect(stream.finalMessage()).rejects.toThrow(/Overloaded/);
  expect(shown).toBe('Here is');
  // The SDK gives up, as it should once output was delivered (a re-send would repeat it): the
  // verdict finds nothing.
  expect(verdict(mock).findings.map((finding) => finding.code)).toEqual([]);
});
