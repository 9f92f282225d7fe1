import { withClassifiedErrors } from '@faultline/extract-openai';
import { type FaultlineError, toDict } from '@faultline/render';
import {
  docExamples,
  type LoopbackServer,
  loadScenarios,
  openaiChatCompletion,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ask } from '../examples/client.ts';
import { llmService } from '../examples/llm-service.ts';
import { type RestateServer, startRestateServer } from './restate-server.ts';

const success = openaiChatCompletion('Hello');

const PAGE = 'docs/integrations/restate.md';
const inCi = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const scenario = (id: string) => loadScenarios('openai').find((candidate) => candidate.id === id)!;
const invalidKey = scenario('openai/invalid-api-key');
const overloaded = scenario('openai/overloaded-503');

let loopback: LoopbackServer;
let restate: RestateServer | undefined;
let startError: unknown;
/** The scenario the example's openai client is answered with (the real SDK, its fetch pointed here). */
let answering: Scenario = success;
let calls = 0;

function openaiFor(): OpenAI {
  return new OpenAI({
    apiKey: 'sk-test',
    maxRetries: 0,
    baseURL: 'http://127.0.0.1:1/v1',
    fetch: (url, init) => {
      calls += 1;
      const path = new URL(String(url)).pathname.replace(/^\/v1/, '');
      return fetch(`${loopback.baseUrlFor(answering)}${path}`, init);
    },
  });
}

beforeAll(async () => {
  loopback = await startLoopbackServer();
  try {
    restate = await startRestateServer();
    await restate.register([llmService(openaiFor())]);
  } catch (error) {
    startError = error;
    if (!inCi) console.warn(`@faultline/restate: skipping the Restate docs example: ${String(error)}`);
  }
}, 120_000);
afterAll(async () => {
  await restate?.close();
  await loopback?.close();
});

function server(skip: () => void): RestateServer {
  if (restate === undefined) {
    if (inCi) throw startError;
    skip();
  }
  return restate!;
}

it(`${PAGE} shows exactly the example files`, () => {
  const examples = docExamples(PAGE);
  expect(examples.map((example) => example.file)).toEqual([
    'packages/restate/examples/llm-service.ts',
    'packages/restate/examples/client.ts',
  ]);
  for (const example of examples) expect(example.shown, example.file).toBe(example.actual);
});

it('the example answers', async ({ skip }) => {
  const { ingressUrl } = server(skip);
  answering = success;
  expect(await ask(ingressUrl, 'Say hello')).toEqual({ answer: 'Hello' });
});

it('the example ends a permanent failure at once and the client recovers its report', async ({ skip }) => {
  const { ingressUrl } = server(skip);
  answering = invalidKey;
  // The same call made once, as the example makes it (retries off: Restate retries).
  const near = (await withClassifiedErrors(
    () =>
      openaiFor().chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Say hello' }],
      }),
    { retry: false },
  ).catch((error: unknown) => error)) as FaultlineError;
  calls = 0;
  expect(await ask(ingressUrl, 'Say hello')).toEqual({ report: toDict(near.toErrorReport()) });
  expect(calls).toBe(1);
});

it('the example stops retrying a transient failure after maxRetryAttempts, and the client gets its report', async ({
  skip,
}) => {
  const { ingressUrl } = server(skip);
  answering = overloaded;
  // The same call made once, as the example makes it (retries off: Restate retries).
  const near = (await withClassifiedErrors(
    () =>
      openaiFor().chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'Say hello' }],
      }),
    { retry: false },
  ).catch((error: unknown) => error)) as FaultlineError;
  calls = 0;
  const outcome = await ask(ingressUrl, 'Say hello');
  // maxRetryAttempts: 5 in the example.
  expect(calls).toBe(5);
  expect(outcome).toEqual({
    report: { ...toDict(near.toErrorReport()), nextStep: 'fallback', retriesExhausted: true },
  });
}, 60_000);
