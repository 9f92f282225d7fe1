// A user's test file, run with `node --test` (the verdict is test-runner agnostic): the mock's
// verdict must catch a deliberately naive client (retries everything at once, ignores
// Retry-After, re-sends a stream that already delivered output, gives up, hangs on a stall) and
// pass faultline's own retry loop on the same scripts. Only the packages' public API is used.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { withClassifiedErrors } from '@faultline/extract-openai';
import {
  assertClientBehaviour,
  ClientContractError,
  fault,
  startMockProvider,
  verdict,
} from '@faultline/llm-mock';
import OpenAI from 'openai';

/** @type {import('@faultline/llm-mock').MockProvider} */
let mock;
before(async () => {
  mock = await startMockProvider({ providers: ['openai'] });
});
after(() => mock.close());
beforeEach(() => mock.reset());

const client = (timeout = 5_000) =>
  new OpenAI({ apiKey: 'sk-test', baseURL: mock.url('openai'), maxRetries: 0, timeout });

/** One call of the app; a distinct prompt is a distinct call (the verdict groups attempts by body). */
async function ask(openai, prompt, stream = false) {
  const messages = [{ role: 'user', content: prompt }];
  if (!stream)
    return (await openai.chat.completions.create({ model: 'gpt-4o-mini', messages })).choices[0].message
      .content;
  let text = '';
  for await (const chunk of await openai.chat.completions.create({
    model: 'gpt-4o-mini',
    messages,
    stream: true,
  }))
    text += chunk.choices[0]?.delta.content ?? '';
  return text;
}

/** Retries every failure at once, up to four attempts: what the verdict exists to catch. */
async function naive(fn) {
  for (let attempt = 1; attempt <= 4; attempt += 1) {
    try {
      return await fn();
    } catch {}
  }
  return undefined;
}

const faultline = (fn) =>
  withClassifiedErrors(fn, { retry: { maxAttempts: 4, baseDelayMs: 20 } }).catch((error) => error);

const codes = (result) => result.findings.map((finding) => finding.code);

describe('a naive client', () => {
  it('is caught retrying a permanent failure and ignoring Retry-After, with a diff-style message', async () => {
    mock.script('openai', [fault.scenario('openai/invalid-api-key', { times: 4 })]);
    await naive(() => ask(client(), 'one'));
    mock.clearScript();
    mock.script('openai', [fault.status(429, { retryAfter: 1, times: 2 }), fault.ok()]);
    assert.equal(await naive(() => ask(client(), 'two')), 'Hello from llm-mock.');
    const result = verdict(mock);
    assert.equal(result.ok, false);
    assert.deepEqual(codes(result), [
      'retried-permanent-failure',
      'ignored-retry-after',
      'ignored-retry-after',
    ]);
    assert.throws(() => assertClientBehaviour(mock), ClientContractError);
    assert.throws(
      () => assertClientBehaviour(mock),
      /- expected: no retry after #1 openai POST \/v1\/chat\/completions → openai\/invalid-api-key, auth/,
    );
    assert.throws(() => assertClientBehaviour(mock), /\+ actual: {3}retried 3 times \(#2, #3, #4\)/);
    assert.throws(() => assertClientBehaviour(mock), /- expected: wait ≥ 1000 ms \(Retry-After 1 s\)/);
  });

  it('is caught re-sending a stream that had delivered output', async () => {
    mock.script('openai', [fault.streamCut(2), fault.ok()]);
    await naive(() => ask(client(), 'three', true));
    assert.deepEqual(codes(verdict(mock)), ['resent-after-output']);
  });

  it('is caught giving up on a transient failure when it does not retry at all', async () => {
    mock.script('openai', [fault.status(503)]);
    await ask(client(), 'four').catch(() => undefined);
    assert.deepEqual(codes(verdict(mock)), ['gave-up-on-transient-failure']);
  });

  it('is caught hanging on a stalled answer; a client with a timeout is not', async () => {
    mock.script('openai', [fault.stall()]);
    const controller = new AbortController();
    const pending = client(60_000)
      .chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hang' }] },
        { signal: controller.signal },
      )
      .catch(() => undefined);
    while (mock.requests().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const [stalled] = mock.requests();
    const result = verdict(mock, {
      stallLimitMs: 500,
      now: stalled.answeredAt + 1_000,
      allow: ['gave-up-on-transient-failure'],
    });
    assert.deepEqual(codes(result), ['hung-past-stall']);
    assert.match(result.message, /\+ actual: {3}still waiting after 1000 ms/);
    controller.abort();
    await pending;

    mock.reset();
    mock.script('openai', [fault.stall()]);
    await ask(client(200), 'five').catch(() => undefined);
    assert.equal(verdict(mock, { stallLimitMs: 30_000, allow: ['gave-up-on-transient-failure'] }).ok, true);
  });
});

describe("faultline's own retry loop (withClassifiedErrors with retry)", () => {
  it('passes on the same scripts', async () => {
    mock.script('openai', [fault.scenario('openai/invalid-api-key', { times: 4 })]);
    await faultline(() => ask(client(), 'one'));
    mock.clearScript();
    mock.script('openai', [fault.status(429, { retryAfter: 1, times: 2 }), fault.ok()]);
    assert.equal(await faultline(() => ask(client(), 'two')), 'Hello from llm-mock.');
    mock.script('openai', [fault.streamCut(2), fault.ok()]);
    await faultline(() => ask(client(), 'three', true));
    mock.clearScript();
    mock.script('openai', [fault.status(503), fault.ok()]);
    assert.equal(await faultline(() => ask(client(), 'four')), 'Hello from llm-mock.');
    assert.equal(assertClientBehaviour(mock).ok, true);
    assert.deepEqual(
      mock.requests().map((request) => request.answer.label),
      [
        'openai/invalid-api-key',
        'status 429 (retry-after 1 s)',
        'status 429 (retry-after 1 s)',
        'ok',
        'stream cut after 2 chunks',
        'status 503',
        'ok',
      ],
    );
  });
});
