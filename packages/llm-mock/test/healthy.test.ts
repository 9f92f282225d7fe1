import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fault, type MockProvider, PROVIDERS, startMockProvider } from '../src/index.ts';
import { callSdk, callsBySdk } from './sdk-clients.ts';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ reply: 'Hello from the mock, friend.' });
});
afterAll(() => mock.close());

describe('healthy answers, read by each real SDK', () => {
  for (const provider of PROVIDERS) {
    for (const call of callsBySdk[provider]) {
      it(`${provider} ${call}`, async () => {
        mock.reset();
        const result = await callSdk(mock, provider, call);
        if (call === 'embeddings') expect(Number(result)).toBeGreaterThan(0);
        else expect(result).toBe('Hello from the mock, friend.');
        const [request] = mock.requests(provider);
        expect(request?.answer).toMatchObject({ kind: 'ok', source: 'default' });
        expect(request?.stream).toBe(call === 'stream');
      });
    }
  }
});

describe('scripted stream faults, read by each real SDK', () => {
  for (const provider of PROVIDERS) {
    for (const then of ['cut', 'error'] as const) {
      it(`${provider}: a stream ${then} after 2 chunks throws`, async () => {
        mock.reset();
        mock.script(provider, [{ kind: 'stream', afterChunks: 2, then }]);
        await expect(callSdk(mock, provider, 'stream')).rejects.toBeInstanceOf(Error);
        expect(mock.requests(provider)[0]?.answer).toMatchObject({ kind: 'stream', deliveredChunks: 2 });
      });
    }
    it(`${provider}: two 429s with retry-after, then success`, async () => {
      mock.reset();
      mock.script(provider, [fault.status(429, { retryAfter: 1, times: 2 }), fault.ok()]);
      for (let attempt = 0; attempt < 2; attempt += 1) {
        await expect(callSdk(mock, provider, 'chat')).rejects.toBeInstanceOf(Error);
      }
      expect(await callSdk(mock, provider, 'chat')).toBe('Hello from the mock, friend.');
      expect(mock.requests(provider).map((request) => request.answer.label)).toEqual([
        'status 429 (retry-after 1 s)',
        'status 429 (retry-after 1 s)',
        'ok',
      ]);
    });
  }
});
