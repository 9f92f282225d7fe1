// biome-ignore-all lint/suspicious/noThenProperty: scenario responses have a `then` field by contract
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeEventStreamMessages } from './event-stream.ts';
import {
  bigBody,
  type LoopbackServer,
  recordedBodyLimitBytes,
  startLoopbackServer,
  withLoopback,
} from './loopback-server.ts';
import type { ScenarioResponse } from './scenario.ts';

const scenarioOf = (response: ScenarioResponse) => ({ response });

function networkCode(error: unknown): string | undefined {
  let current: any = error;
  for (let depth = 0; depth < 5 && current; depth += 1) {
    if (typeof current.code === 'string') return current.code;
    current = current.cause;
  }
  return undefined;
}

async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

const pending = Symbol('pending');
async function settleWithin<T>(promise: Promise<T>, milliseconds: number): Promise<T | typeof pending> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof pending>((resolve) => {
    timer = setTimeout(() => resolve(pending), milliseconds);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('loopback server (http1)', () => {
  let server: LoopbackServer;
  beforeEach(async () => {
    server = await startLoopbackServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('answers an http scenario with its status, headers and body bytes, whatever the SDK path', async () => {
    const body = '{"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}}';
    const scenario = scenarioOf({
      kind: 'http',
      status: 429,
      headers: { 'Retry-After': '7', 'X-Request-Id': 'req_1' },
      body,
    });
    const baseUrl = server.baseUrlFor(scenario, { pathPrefix: '/v1' });
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s\/[A-Za-z0-9_-]+\/v1$/);
    const response = await fetch(`${baseUrl}/chat/completions?x=1`, {
      method: 'POST',
      headers: { Authorization: 'Bearer sk-test', 'Content-Type': 'application/json' },
      body: '{"model":"gpt-x"}',
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('x-request-id')).toBe('req_1');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.text()).toBe(body);
    const [request, ...rest] = server.requests(scenario);
    expect(rest).toHaveLength(0);
    expect(request).toMatchObject({
      method: 'POST',
      subPath: '/v1/chat/completions?x=1',
      body: '{"model":"gpt-x"}',
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    });
    expect(request!.path.endsWith('/v1/chat/completions?x=1')).toBe(true);
  });

  it('sends empty, HTML and truncated bodies verbatim', async () => {
    const cases = [
      { status: 500, body: '', contentType: null },
      { status: 502, body: '<html><body>Bad Gateway</body></html>', contentType: 'text/html; charset=utf-8' },
      { status: 200, body: '{"id":"x","choices":[', contentType: 'application/json' },
    ];
    for (const { status, body, contentType } of cases) {
      const response = await fetch(server.baseUrlFor(scenarioOf({ kind: 'http', status, body })));
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe(contentType);
      expect(await response.text()).toBe(body);
    }
  });

  it('keeps an explicit content-type', async () => {
    const scenario = scenarioOf({
      kind: 'http',
      status: 400,
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    const response = await fetch(server.baseUrlFor(scenario));
    expect(response.headers.get('content-type')).toBe('text/plain');
  });

  it('answers an unknown token with a 404 JSON body', async () => {
    const response = await fetch(`${server.origin}/s/nope/v1/messages`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { type: 'not_found' } });
    const root = await fetch(`${server.origin}/`);
    expect(root.status).toBe(404);
    await root.text();
  });

  it('records requests per scenario and cuts recorded bodies at 1 MB', async () => {
    const first = scenarioOf({ kind: 'http', status: 200, body: '{}' });
    const second = scenarioOf({ kind: 'http', status: 200, body: '{}' });
    const upload = 'y'.repeat(recordedBodyLimitBytes + 5000);
    await (await fetch(server.baseUrlFor(first), { method: 'POST', body: upload })).text();
    await (await fetch(server.baseUrlFor(first))).text();
    expect(server.requests(first)).toHaveLength(2);
    expect(server.requests(first)[0]!.body).toHaveLength(recordedBodyLimitBytes);
    expect(server.requests(first)[1]!.method).toBe('GET');
    expect(server.requests(second)).toEqual([]);
  });

  it('streams SSE events then ends', async () => {
    const scenario = scenarioOf({
      kind: 'sse',
      events: [
        { data: '{"a":1}' },
        { event: 'error', id: '7', data: 'line one\nline two' },
        { data: '[DONE]' },
      ],
      then: 'end',
    });
    const response = await fetch(server.baseUrlFor(scenario));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(
      'data: {"a":1}\n\nevent: error\nid: 7\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n',
    );
  });

  it('streams SSE events then cuts: the reader sees the events, then errors', async () => {
    const scenario = scenarioOf({
      kind: 'sse',
      status: 200,
      events: [{ data: 'one' }, { data: 'two' }],
      then: 'cut',
    });
    const response = await fetch(server.baseUrlFor(scenario));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const error = await rejection(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          text += decoder.decode(value, { stream: true });
        }
      })(),
    );
    expect(text).toBe('data: one\n\ndata: two\n\n');
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('terminated');
  });

  it('streams SSE events then stalls until close()', async () => {
    const scenario = scenarioOf({ kind: 'sse', events: [{ data: 'one' }], then: 'stall' });
    const response = await fetch(server.baseUrlFor(scenario));
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
    const next = reader.read();
    next.catch(() => {});
    expect(await settleWithin(next, 300)).toBe(pending);
    await server.close();
    expect(await rejection(next)).toBeInstanceOf(TypeError);
  });

  it('records whether the client released a stalled stream (responseClosed)', async () => {
    const scenario = scenarioOf({ kind: 'sse', events: [{ data: 'one' }], then: 'stall' });
    const controller = new AbortController();
    const response = await fetch(server.baseUrlFor(scenario), { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    const [record] = server.requests(scenario);
    expect(record?.responseClosed).toBe(false);
    controller.abort();
    await reader.read().catch(() => {});
    const deadline = Date.now() + 5_000;
    while (record?.responseClosed !== true && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(record?.responseClosed).toBe(true);
    expect(Object.keys(record ?? {})).not.toContain('responseClosed');
  });

  it('honours a non-200 SSE status and extra headers', async () => {
    const scenario = scenarioOf({
      kind: 'sse',
      status: 201,
      headers: { 'X-Extra': 'yes' },
      events: [],
      then: 'end',
    });
    const response = await fetch(server.baseUrlFor(scenario));
    expect(response.status).toBe(201);
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(await response.text()).toBe('');
  });

  it('sends AWS event-stream frames that decode back', async () => {
    const messages: Array<{ headers: Record<string, string>; payload: string }> = [
      {
        headers: { ':message-type': 'event', ':event-type': 'messageStart' },
        payload: '{"role":"assistant"}',
      },
      {
        headers: { ':message-type': 'exception', ':exception-type': 'throttlingException' },
        payload: '{"message":"slow"}',
      },
    ];
    const scenario = scenarioOf({ kind: 'aws-event-stream', messages, then: 'end' });
    const response = await fetch(server.baseUrlFor(scenario));
    expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const { messages: decoded, rest } = decodeEventStreamMessages(
      new Uint8Array(await response.arrayBuffer()),
    );
    expect(rest).toHaveLength(0);
    expect(decoded).toEqual([
      {
        headers: { ':message-type': 'event', ':event-type': 'messageStart' },
        payload: '{"role":"assistant"}',
      },
      {
        headers: { ':message-type': 'exception', ':exception-type': 'throttlingException' },
        payload: '{"message":"slow"}',
      },
    ]);
  });

  it('cuts an AWS event stream in the middle of the last message when asked', async () => {
    const messages = [
      { headers: { ':message-type': 'event', ':event-type': 'a' }, payload: '{}' },
      { headers: { ':message-type': 'event', ':event-type': 'b' }, payload: '{"long":"payload"}' },
    ];
    const scenario = scenarioOf({ kind: 'aws-event-stream', messages, then: 'cut', cutMidMessage: true });
    const response = await fetch(server.baseUrlFor(scenario));
    const reader = response.body!.getReader();
    const chunks: Uint8Array[] = [];
    const error = await rejection(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          chunks.push(value);
        }
      })(),
    );
    expect(error.message).toBe('terminated');
    const { messages: decoded, rest } = decodeEventStreamMessages(Buffer.concat(chunks));
    expect(decoded.map((message) => message.headers[':event-type'])).toEqual(['a']);
    expect(rest.length).toBeGreaterThan(0);
  });

  it('refuse: nothing listens on the URL it hands out', async () => {
    const baseUrl = server.baseUrlFor(scenarioOf({ kind: 'socket', behaviour: 'refuse' }));
    expect(baseUrl).not.toContain(`:${server.port}/`);
    const error = await rejection(fetch(`${baseUrl}/chat/completions`));
    expect(error.message).toBe('fetch failed');
    expect(networkCode(error)).toBe('ECONNREFUSED');
  });

  it('dns-failure: the host does not resolve', async () => {
    const baseUrl = server.baseUrlFor(scenarioOf({ kind: 'dns-failure' }), { pathPrefix: '/v1' });
    expect(baseUrl).toBe('http://no-such-host.invalid/v1');
    const error = await rejection(fetch(`${baseUrl}/messages`));
    expect(networkCode(error)).toBe('ENOTFOUND');
  });

  it('never-answer: reads the request and stays silent until the client gives up', async () => {
    const scenario = scenarioOf({ kind: 'socket', behaviour: 'never-answer' });
    const error = await rejection(
      fetch(server.baseUrlFor(scenario), { method: 'POST', body: 'hello', signal: AbortSignal.timeout(300) }),
    );
    expect(error.name).toBe('TimeoutError');
    expect(server.requests(scenario)[0]!.body).toBe('hello');
  });

  it('never-answer: close() ends a pending request', async () => {
    const scenario = scenarioOf({ kind: 'socket', behaviour: 'never-answer' });
    const request = fetch(server.baseUrlFor(scenario));
    request.catch(() => {});
    expect(await settleWithin(request, 200)).toBe(pending);
    await server.close();
    const error = await rejection(request);
    expect(networkCode(error)).toBe('UND_ERR_SOCKET');
  });

  it('reset-after-request: reads the full request, then destroys the socket', async () => {
    const scenario = scenarioOf({ kind: 'socket', behaviour: 'reset-after-request' });
    const error = await rejection(
      fetch(server.baseUrlFor(scenario), { method: 'POST', body: 'z'.repeat(100_000) }),
    );
    expect(error.message).toBe('fetch failed');
    expect(networkCode(error)).toBe('UND_ERR_SOCKET');
    expect(server.requests(scenario)[0]!.body).toHaveLength(100_000);
  });

  it('cut-body: sends status, headers and a partial body, then destroys the socket', async () => {
    const scenario = scenarioOf({
      kind: 'socket',
      behaviour: 'cut-body',
      status: 200,
      headers: { 'x-request-id': 'req_cut' },
      partialBody: '{"id":"chatcmpl-1","choices":[{"mess',
    });
    const response = await fetch(server.baseUrlFor(scenario));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req_cut');
    expect(response.headers.get('content-type')).toBe('application/json');
    const error = await rejection(response.text());
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('terminated');
  });

  it('serves a 50 MB body built by bigBody()', async () => {
    const body = bigBody(50);
    expect(body.length).toBe(50 * 1024 * 1024);
    expect(JSON.parse(body).error.code).toBe('big_body');
    const response = await fetch(server.baseUrlFor(scenarioOf({ kind: 'http', status: 500, body })));
    expect((await response.arrayBuffer()).byteLength).toBe(body.length);
  });

  it('close() is idempotent and refuses later connections', async () => {
    const baseUrl = server.baseUrlFor(scenarioOf({ kind: 'http', status: 200, body: '{}' }));
    await server.close();
    await server.close();
    expect(networkCode(await rejection(fetch(baseUrl)))).toBe('ECONNREFUSED');
  });
});

describe('withLoopback', () => {
  it('closes the server after the callback, even when it throws', async () => {
    let seen: LoopbackServer | undefined;
    await expect(
      withLoopback(async (server) => {
        seen = server;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const error = await rejection(fetch(`${seen!.origin}/`));
    expect(networkCode(error)).toBe('ECONNREFUSED');
  });

  it('returns the callback result', async () => {
    const status = await withLoopback(async (server) => {
      const response = await fetch(server.baseUrlFor(scenarioOf({ kind: 'http', status: 418, body: '' })));
      return response.status;
    });
    expect(status).toBe(418);
  });
});

describe('loopback server with cors', () => {
  it('answers a preflight without recording it and lets a page read every response header', async () => {
    await withLoopback(
      async (server) => {
        const scenario = scenarioOf({
          kind: 'http',
          status: 429,
          headers: { 'retry-after': '3' },
          body: '{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}',
        });
        const url = `${server.baseUrlFor(scenario)}/v1/chat/completions`;
        const preflight = await fetch(url, {
          method: 'OPTIONS',
          headers: {
            origin: 'http://127.0.0.1:9',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization, x-stainless-os',
          },
        });
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
        expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
        expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization, x-stainless-os');
        expect(server.requests(scenario)).toHaveLength(0);

        const answer = await fetch(url, { method: 'POST', body: '{}' });
        expect(answer.status).toBe(429);
        expect(answer.headers.get('access-control-allow-origin')).toBe('*');
        expect(answer.headers.get('access-control-expose-headers')).toBe('*');
        expect(answer.headers.get('retry-after')).toBe('3');
        expect(server.requests(scenario)).toHaveLength(1);
      },
      { cors: true },
    );
  });

  it('sends no cors header and records an OPTIONS request as any other when cors is off', async () => {
    await withLoopback(async (server) => {
      const scenario = scenarioOf({ kind: 'http', status: 200, headers: {}, body: '{}' });
      const answer = await fetch(`${server.baseUrlFor(scenario)}/x`, {
        method: 'OPTIONS',
        headers: { 'access-control-request-method': 'POST' },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      expect(server.requests(scenario)).toHaveLength(1);
    });
  });
});
