// The same mock and verdict under node:test (no vitest): run with
//   node --import tsx --test examples/node-test.example.ts
// assertClientBehaviour throws a plain Error, so any runner prints its diff-style message.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClientBehaviour, fault, type MockProvider, startMockProvider } from '@faultline/llm-mock';

let mock: MockProvider;
before(async () => {
  mock = await startMockProvider({ providers: ['openai'] });
});
after(() => mock.close());

/** A client with a retry bug: it retries at once, whatever the failure. */
async function impatientClient(url: string): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(`${url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.arrayBuffer();
    if (response.ok || attempt === 3) return response.status;
  }
}

test('the verdict fails an impatient client with a readable message', async () => {
  mock.script('openai', [fault.status(429, { retryAfter: 2 }), fault.ok()]);
  assert.equal(await impatientClient(mock.url('openai')), 200);
  assert.throws(() => assertClientBehaviour(mock), {
    name: 'ClientContractError',
    message:
      /(ignored-retry-after|retried-faster-than-asked)\n {2}- expected: wait ≥ 2000 ms \(Retry-After 2 s\)/,
  });
});
