import type { AddressInfo } from 'node:net';
import {
  docExamples,
  type LoopbackServer,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { serve } from '@hono/node-server';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp as createExpressApp } from '../examples/express.ts';
import { createApp as createFastifyApp } from '../examples/fastify.ts';
import { createApp as createHonoApp } from '../examples/hono.ts';
import { SCENARIOS, SUCCESS } from './test-support.ts';

const PAGE = 'docs/integrations/http.md';

interface Running {
  readonly base: string;
  close(): Promise<unknown>;
}

/** Each example app, started on 127.0.0.1 with an openai client pointed at the loopback server. */
const EXAMPLES: Array<{ file: string; start: (openai: OpenAI) => Promise<Running> }> = [
  {
    file: 'packages/http/examples/express.ts',
    start: async (openai) => {
      const server = createExpressApp(openai).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      return {
        base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((resolve) => server.close(resolve)),
      };
    },
  },
  {
    file: 'packages/http/examples/fastify.ts',
    start: async (openai) => {
      const app = createFastifyApp(openai);
      return { base: await app.listen({ port: 0, host: '127.0.0.1' }), close: () => app.close() };
    },
  },
  {
    file: 'packages/http/examples/hono.ts',
    start: async (openai) => {
      const server = serve({ fetch: createHonoApp(openai).fetch, port: 0, hostname: '127.0.0.1' });
      await new Promise((resolve) => server.once('listening', resolve));
      return {
        base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((resolve) => server.close(resolve)),
      };
    },
  },
];

let loopback: LoopbackServer;
beforeAll(async () => {
  loopback = await startLoopbackServer();
});
afterAll(() => loopback?.close());

it(`${PAGE} shows exactly the example files`, () => {
  const examples = docExamples(PAGE);
  expect(examples.map((example) => example.file)).toEqual(EXAMPLES.map((example) => example.file));
  for (const example of examples) expect(example.shown, example.file).toBe(example.actual);
});

describe.each(EXAMPLES)('$file', ({ start }) => {
  async function chat(scenario: Scenario) {
    const openai = new OpenAI({ baseURL: loopback.baseUrlFor(scenario), apiKey: 'sk-test', maxRetries: 0 });
    const app = await start(openai);
    try {
      const response = await fetch(`${app.base}/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'Say hello' }),
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    } finally {
      await app.close();
    }
  }

  it('answers', async () => {
    const answer = await chat(SUCCESS);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ answer: 'Hello' });
  });

  it("answers the provider's rate limit with problem+json and Retry-After", async () => {
    const scenario = SCENARIOS.rateLimit!;
    const answer = await chat(scenario);
    expect(answer.status).toBe(scenario.expected.httpStatus);
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.headers.get('retry-after')).toBe(String(Math.ceil(scenario.expected.retryAfterSeconds!)));
    expect(answer.body).toMatchObject({
      reason: scenario.expected.reason,
      status: scenario.expected.httpStatus,
    });
  });
});
