import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  fault,
  type MockProvider,
  type MockRequest,
  parseScript,
  startMockProvider,
  verdict,
} from '../src/index.ts';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider({ providers: ['openai', 'anthropic'] });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function chat(body: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${mock.url('openai')}/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: 'Bearer sk-canary-record-0000',
      ...headers,
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

describe('routing', () => {
  it('answers each provider under its prefix and names the providers otherwise', async () => {
    expect(mock.url('openai')).toBe(`${mock.origin}/openai/v1`);
    expect(mock.url('anthropic')).toBe(`${mock.origin}/anthropic`);
    const unknown = await fetch(`${mock.origin}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain(
      'names no provider; use a base URL from mock.url(provider) (openai, anthropic)',
    );
  });

  it("answers a path the provider does not have with a 404 in the provider's format, recorded", async () => {
    const response = await fetch(`${mock.url('anthropic')}/v1/complete`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect(mock.requests('anthropic')[0]?.answer).toMatchObject({ kind: 'not-found', reason: 'not_found' });
  });

  it('rejects what it cannot do, naming it', async () => {
    await expect(startMockProvider({ providers: ['acme' as never] })).rejects.toThrow(
      /unknown provider "acme"/,
    );
    expect(() => mock.script('openai', [fault.scenario('anthropic/overloaded')])).toThrow(
      /anthropic\/overloaded is a anthropic answer, scripted for openai/,
    );
    expect(() => mock.script('openai', [fault.scenario('openai/dns-failure')])).toThrow(
      /mock.unreachableUrl\('dns'\)/,
    );
    expect(() => mock.script([fault.ok()])).toThrow(/needs a one-provider mock/);
    expect(() => parseScript([{ kind: 'status', status: 200 }])).toThrow(
      /invalid llm-mock script:\n {2}- steps\.0\.status/,
    );
    expect(() => parseScript({ chaos: { probability: 2, faults: [] } })).toThrow(/chaos\.probability/);
  });

  it('gives URLs that fail before any request: refused and unresolvable', async () => {
    await expect(fetch(`${mock.unreachableUrl('refused')}/x`)).rejects.toMatchObject({
      cause: { code: 'ECONNREFUSED' },
    });
    expect(mock.unreachableUrl('dns')).toBe('http://no-such-host.invalid');
  });
});

describe('the record', () => {
  it('keeps time, redacted headers, body size and the answer, never the body or a credential', async () => {
    mock.script('openai', [fault.status(503, { latencyMs: 30 })]);
    const response = await chat({}, { 'x-api-key': 'sk-canary-second' });
    expect(response.status).toBe(503);
    const [request] = mock.requests('openai');
    expect(request).toMatchObject({
      index: 1,
      provider: 'openai',
      method: 'POST',
      path: '/v1/chat/completions',
      operation: 'chat',
      stream: false,
      model: 'gpt-4o-mini',
      answer: {
        kind: 'status',
        status: 503,
        reason: 'overloaded',
        retryable: true,
        source: 'script',
        latencyMs: 30,
      },
    });
    expect(request!.headers.authorization).toBe('[redacted]');
    expect(request!.headers['x-api-key']).toBe('[redacted]');
    expect(request!.bodyBytes).toBe(
      Buffer.byteLength(
        JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      ),
    );
    expect(request!.answeredAt - request!.time).toBe(30);
    expect(JSON.stringify(mock.requests())).not.toMatch(/sk-canary|"hi"/);
  });

  it('marks a response closed once it is over', async () => {
    await (await chat()).text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(mock.requests()[0]!.closedAt).toBeGreaterThanOrEqual(mock.requests()[0]!.time);
  });
});

describe('steps', () => {
  it('plays a queue in order, `times` included, then healthy answers', async () => {
    mock.script('openai', [fault.status(429, { retryAfter: 2, times: 2 }), fault.cut(), fault.reset()]);
    expect(mock.pending('openai')).toBe(4);
    expect((await chat()).status).toBe(429);
    expect((await chat()).headers.get('retry-after')).toBe('2');
    await expect((await chat()).text()).rejects.toThrow();
    await expect(chat()).rejects.toThrow();
    expect((await chat()).status).toBe(200);
    expect(mock.requests().map((request) => `${request.answer.label}/${request.answer.source}`)).toEqual([
      'status 429 (retry-after 2 s)/script',
      'status 429 (retry-after 2 s)/script',
      'body cut/script',
      'connection reset/script',
      'ok/default',
    ]);
  });

  it('replays the same chaos for the same seed', async () => {
    const run = async () => {
      mock.reset();
      mock.chaos('openai', { probability: 0.5, seed: 42, faults: [fault.status(500), fault.status(503)] });
      const statuses: number[] = [];
      for (let index = 0; index < 12; index += 1) statuses.push((await chat({ n: index })).status);
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(first.some((status) => status === 200)).toBe(true);
    expect(first.some((status) => status >= 500)).toBe(true);
    expect(mock.requests().filter((request) => request.answer.source === 'chaos').length).toBe(
      first.filter((status) => status >= 500).length,
    );
  });

  it('scripts the OpenAI Responses API and base64 embeddings in the shapes the SDK asks for', async () => {
    const responses = await fetch(`${mock.url('openai')}/responses`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-4o-mini', input: 'hi' }),
    });
    expect(await responses.json()).toMatchObject({ object: 'response', status: 'completed' });
    const embeddings = await fetch(`${mock.url('openai')}/embeddings`, {
      method: 'POST',
      body: JSON.stringify({ model: 'text-embedding-3-small', input: ['a', 'b'], encoding_format: 'base64' }),
    });
    const body = (await embeddings.json()) as { data: Array<{ embedding: string }> };
    expect(body.data).toHaveLength(2);
    expect(Buffer.from(body.data[0]!.embedding, 'base64').length).toBe(8 * 4);
  });
});

describe('verdict rules on a record', () => {
  const base = (index: number, time: number, answer: Partial<MockRequest['answer']>): MockRequest => ({
    index,
    provider: 'openai',
    time,
    method: 'POST',
    path: '/v1/chat/completions',
    stream: false,
    headers: {},
    bodyBytes: 10,
    fingerprint: 'same',
    answeredAt: time,
    closedAt: time,
    answer: {
      kind: 'status',
      label: 'status 429 (retry-after 2 s)',
      source: 'script',
      retryable: true,
      deliveredChunks: 0,
      stalls: false,
      latencyMs: 0,
      ...answer,
    },
  });

  it('tells a retry that waited too little from one that ignored the wait', () => {
    const records = [
      base(1, 0, { retryAfterSeconds: 2 }),
      base(2, 1_500, { kind: 'ok', label: 'ok', retryable: false }),
    ];
    expect(verdict(records).findings.map((finding) => finding.code)).toEqual(['retried-faster-than-asked']);
    records[1] = { ...records[1]!, time: 300 };
    expect(verdict(records).findings.map((finding) => finding.code)).toEqual(['ignored-retry-after']);
    records[1] = { ...records[1]!, time: 2_000 };
    expect(verdict(records).ok).toBe(true);
  });

  it('excuses giving up on a wait longer than maxWaitSeconds, and skips allowed codes', () => {
    expect(verdict([base(1, 0, { retryAfterSeconds: 120 })]).ok).toBe(true);
    expect(verdict([base(1, 0, { retryAfterSeconds: 5 })]).findings[0]?.code).toBe(
      'gave-up-on-transient-failure',
    );
    expect(verdict([base(1, 0, {})], { allow: ['gave-up-on-transient-failure'] }).ok).toBe(true);
  });
});

describe('rateLimit', () => {
  it('admits `requests` per window, then answers 429 with retry-after and the rate-limit headers', async () => {
    // A window far longer than the test: every request falls in the first one.
    mock.script('openai', {
      rateLimit: { requests: 2, windowMs: 600_000 },
      steps: [fault.ok({ reply: 'scripted' })],
    });
    const first = await chat();
    const second = await chat();
    const third = await chat();
    expect([first.status, second.status, third.status]).toEqual([200, 200, 429]);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('1');
    expect(second.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(third.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const reset = third.headers.get('x-ratelimit-reset-requests') ?? '';
    expect(reset).toMatch(/^\d+ms$/);
    expect(Number(third.headers.get('retry-after'))).toBe(Math.ceil(Number.parseInt(reset, 10) / 1000));
    expect(await third.json()).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    // The scripted step went to the first admitted request; the refused one took no step.
    expect(mock.requests('openai').map((request) => request.answer.label)).toEqual([
      'ok',
      'ok',
      `rate limit 429 (retry-after ${third.headers.get('retry-after')} s)`,
    ]);
    expect(mock.requests('openai')[2]?.answer).toMatchObject({ reason: 'rate_limit', retryable: true });
  });

  it("sends Anthropic's names with an RFC 3339 reset", async () => {
    mock.script('anthropic', { rateLimit: { requests: 1, windowMs: 600_000 } });
    const send = () =>
      fetch(`${mock.url('anthropic')}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'claude-x',
          max_tokens: 5,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
    expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(Number.isNaN(Date.parse(refused.headers.get('anthropic-ratelimit-requests-reset') ?? ''))).toBe(
      false,
    );
  });

  it('is forgotten by clearScript and reset', async () => {
    mock.script('openai', { rateLimit: { requests: 1, windowMs: 600_000 } });
    await chat();
    mock.clearScript('openai');
    expect((await chat()).status).toBe(200);
  });
});
