import { Writable } from 'node:stream';
import {
  docExamples,
  type LoopbackServer,
  loadScenarios,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chat, createLogger } from '../examples/logger.ts';

const PAGE = 'docs/integrations/logging.md';
const KEY = 'sk-proj-DocsCanaryKey0123456789abcdef';
const PROMPT = 'PROMPT-CANARY: the docs example prompt';
const invalidKey = loadScenarios('openai').find((scenario) => scenario.id === 'openai/invalid-api-key')!;

let loopback: LoopbackServer;
beforeAll(async () => {
  loopback = await startLoopbackServer();
});
afterAll(() => loopback?.close());

it(`${PAGE} shows exactly the example file`, () => {
  const examples = docExamples(PAGE);
  expect(examples.map((example) => example.file)).toEqual(['packages/pino/examples/logger.ts']);
  for (const example of examples) expect(example.shown, example.file).toBe(example.actual);
});

it('the example logs the report of a real SDK failure, without the key or the prompt', async () => {
  const lines: string[] = [];
  const logger = createLogger(
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  const openai = new OpenAI({ baseURL: loopback.baseUrlFor(invalidKey), apiKey: KEY, maxRetries: 0 });
  expect(await chat(openai, logger, PROMPT)).toBeUndefined();
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain('DocsCanaryKey');
  expect(lines[0]).not.toContain('PROMPT-CANARY');
  const line = JSON.parse(lines[0]!) as { msg: string; err: { report: { reason: string } } };
  expect(line.msg).toBe('model call failed');
  expect(line.err.report.reason).toBe(invalidKey.expected.reason);
});
