import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HealthRegistry, keyId, MemoryHealthStore } from '@faultline/resilience';
import { createOpenAI } from 'ai-sdk-openai-v2';
import * as ai5 from 'ai-v5';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { faultlineFallback } from './fallback-model.ts';

/** What the test is about: the time between a stream's response and its first output. */
const FIRST_OUTPUT_AFTER_MS = 300;
const RESET_SECONDS = 2;

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-age',
    object: 'chat.completion.chunk',
    created: 1763760000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;

// A chat completions stream whose headers say the key is spent until its reset, relative to the
// answer ("2s"), and whose first output comes a while after them (a model's time to first token).
// Played through ai 5's openai provider, whose doStream resolves when the response arrives (ai 6's
// reads to the first output itself before resolving: the arrival is then not known any sooner).
let server: Server;
let baseURL: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'x-ratelimit-limit-requests': '10',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': `${RESET_SECONDS}s`,
    });
    response.write(chunk({ role: 'assistant', content: '' }));
    setTimeout(() => {
      response.write(chunk({ content: 'late answer' }));
      response.write(chunk({}, 'stop'));
      response.end('data: [DONE]\n\n');
    }, FIRST_OUTPUT_AFTER_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

it("a stream's budget resets counted from its response's arrival, not from its first output", async () => {
  const store = new MemoryHealthStore();
  const registry = new HealthRegistry({ store });
  const model = faultlineFallback({
    models: [createOpenAI({ baseURL, apiKey: 'sk-canary-budget-age-0001' }).chat('gpt-4o-mini')],
    registry,
  });
  let text = '';
  for await (const delta of ai5.streamText({ model, prompt: 'hi', maxRetries: 0 }).textStream) text += delta;
  expect(text).toBe('late answer');
  const [left] = store.readNow([`left:${keyId({ provider: 'openai', model: 'gpt-4o-mini' })}`]);
  expect(left?.value).toBe(0);
  // The key is spent until 2 s after the response arrived: the time to the first output, which
  // came before the chain saw the stream open, is already gone from it.
  expect(left?.ttlMs).toBeLessThanOrEqual(RESET_SECONDS * 1000 - FIRST_OUTPUT_AFTER_MS);
});
