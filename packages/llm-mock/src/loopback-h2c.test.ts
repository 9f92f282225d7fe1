// biome-ignore-all lint/suspicious/noThenProperty: scenario responses have a `then` field by contract
import { existsSync } from 'node:fs';
import http2 from 'node:http2';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeEventStreamMessages } from './event-stream.ts';
import { type LoopbackServer, startLoopbackServer } from './loopback-server.ts';
import type { ScenarioResponse } from './scenario.ts';

const scenarioOf = (response: ScenarioResponse) => ({ response });

interface H2Result {
  status?: number;
  headers: http2.IncomingHttpHeaders;
  body: Buffer;
  /**
   * How the stream finished. `end`: END_STREAM and RST code 0. `cancelled`: the readable side
   * ended but the stream's RST code is not NO_ERROR: what node:http2 reports when the connection
   * drops (the session or socket is destroyed): it emits 'end', then sets `rstCode` 8 (CANCEL).
   * `timeout`: no data for `idleMilliseconds`.
   */
  outcome: 'end' | 'cancelled' | 'error' | 'timeout';
  rstCode?: number;
  error?: Error;
}

/** One h2c request with a plain node:http2 client; never rejects. */
function h2Request(
  url: string,
  options: { method?: string; body?: string; idleMilliseconds?: number } = {},
): Promise<H2Result> {
  const parsed = new URL(url);
  return new Promise((resolve) => {
    const session = http2.connect(parsed.origin);
    session.on('error', () => {});
    const chunks: Buffer[] = [];
    const result: H2Result = { headers: {}, body: Buffer.alloc(0), outcome: 'error' };
    let settled = false;
    let idle: NodeJS.Timeout | undefined;
    const finish = (outcome: H2Result['outcome'], error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      result.outcome = outcome;
      result.rstCode = stream.rstCode;
      if (error) result.error = error;
      result.body = Buffer.concat(chunks);
      session.destroy();
      resolve(result);
    };
    const armIdle = () => {
      if (options.idleMilliseconds === undefined) return;
      clearTimeout(idle);
      idle = setTimeout(() => finish('timeout'), options.idleMilliseconds);
    };
    const stream = session.request({
      ':method': options.method ?? 'POST',
      ':path': parsed.pathname + parsed.search,
      'content-type': 'application/json',
    });
    stream.on('response', (headers) => {
      result.status = Number(headers[':status']);
      result.headers = headers;
      armIdle();
    });
    stream.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      armIdle();
    });
    stream.on('error', (error) => finish('error', error));
    stream.on('close', () =>
      finish(stream.rstCode === http2.constants.NGHTTP2_NO_ERROR ? 'end' : 'cancelled'),
    );
    stream.resume();
    stream.end(options.body ?? '');
    armIdle();
  });
}

describe('loopback server (h2c)', () => {
  let server: LoopbackServer;
  beforeEach(async () => {
    server = await startLoopbackServer({ protocol: 'h2c' });
  });
  afterEach(async () => {
    await server.close();
  });

  it('answers an http scenario over cleartext HTTP/2 and records the request', async () => {
    const scenario = scenarioOf({
      kind: 'http',
      status: 429,
      headers: { 'X-Amzn-ErrorType': 'ThrottlingException', 'x-amzn-requestid': 'req-h2' },
      body: '{"message":"Too many requests"}',
    });
    const baseUrl = server.baseUrlFor(scenario);
    const result = await h2Request(`${baseUrl}/model/m/converse`, { body: '{"messages":[]}' });
    expect(result.outcome).toBe('end');
    expect(result.status).toBe(429);
    expect(result.headers['x-amzn-errortype']).toBe('ThrottlingException');
    expect(result.headers['content-type']).toBe('application/json');
    expect(result.body.toString()).toBe('{"message":"Too many requests"}');
    expect(server.requests(scenario)).toEqual([
      expect.objectContaining({ method: 'POST', subPath: '/model/m/converse', body: '{"messages":[]}' }),
    ]);
    expect(server.requests(scenario)[0]!.headers[':path']).toBeUndefined();
  });

  it('answers an unknown token with a 404', async () => {
    const result = await h2Request(`${server.origin}/s/unknown/x`);
    expect(result.status).toBe(404);
  });

  it('sends event-stream frames, then ends', async () => {
    const messages = [
      {
        headers: { ':message-type': 'event', ':event-type': 'messageStart' },
        payload: '{"role":"assistant"}',
      },
      {
        headers: { ':message-type': 'event', ':event-type': 'messageStop' },
        payload: '{"stopReason":"end_turn"}',
      },
    ];
    const result = await h2Request(
      server.baseUrlFor(scenarioOf({ kind: 'aws-event-stream', messages, then: 'end' })),
    );
    expect(result.outcome).toBe('end');
    expect(result.headers['content-type']).toBe('application/vnd.amazon.eventstream');
    expect(decodeEventStreamMessages(result.body).messages).toEqual(messages);
  });

  it('sends SSE events, then cuts: the client sees the events and no clean end', async () => {
    const scenario = scenarioOf({ kind: 'sse', events: [{ data: 'one' }, { data: 'two' }], then: 'cut' });
    const result = await h2Request(server.baseUrlFor(scenario));
    expect(result.body.toString()).toBe('data: one\n\ndata: two\n\n');
    expect(result.outcome).toBe('cancelled');
  });

  it('stalls until close()', async () => {
    const scenario = scenarioOf({ kind: 'sse', events: [{ data: 'one' }], then: 'stall' });
    const stalled = await h2Request(server.baseUrlFor(scenario), { idleMilliseconds: 300 });
    expect(stalled.outcome).toBe('timeout');
    expect(stalled.body.toString()).toBe('data: one\n\n');
    const pending = h2Request(server.baseUrlFor(scenario));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.close();
    expect((await pending).outcome).toBe('cancelled');
  });

  it('reset-after-request, cut-body and never-answer give no clean end', async () => {
    const reset = await h2Request(
      server.baseUrlFor(scenarioOf({ kind: 'socket', behaviour: 'reset-after-request' })),
      { body: 'x'.repeat(70_000) },
    );
    expect(reset.status).toBeUndefined();
    expect(reset.outcome).toBe('cancelled');

    const cut = await h2Request(
      server.baseUrlFor(
        scenarioOf({ kind: 'socket', behaviour: 'cut-body', status: 200, partialBody: '{"output":' }),
      ),
    );
    expect(cut.status).toBe(200);
    expect(cut.body.toString()).toBe('{"output":');
    expect(cut.outcome).toBe('cancelled');

    const silent = await h2Request(
      server.baseUrlFor(scenarioOf({ kind: 'socket', behaviour: 'never-answer' })),
      {
        idleMilliseconds: 300,
      },
    );
    expect(silent.outcome).toBe('timeout');
    expect(silent.status).toBeUndefined();
  });
});

// The real AWS SDK, installed as a devDependency of extract-bedrock (not a dependency of this
// package): proves that it reaches the h2c server with the `/s/<token>` prefix intact.
const bedrockEntry = new URL(
  '../../packages/extract-bedrock/node_modules/@aws-sdk/client-bedrock-runtime/dist-cjs/index.js',
  import.meta.url,
);
const bedrock: any = existsSync(bedrockEntry)
  ? createRequire(import.meta.url)(bedrockEntry.pathname)
  : undefined;

describe.skipIf(bedrock === undefined)('@aws-sdk/client-bedrock-runtime against the h2c server', () => {
  let server: LoopbackServer;
  const clients: Array<{ destroy(): void }> = [];
  const clientFor = (endpoint: string) => {
    const client = new bedrock.BedrockRuntimeClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
    clients.push(client);
    return client;
  };
  const converse = {
    modelId: 'anthropic.claude-3-haiku',
    messages: [{ role: 'user', content: [{ text: 'hi' }] }],
  };

  beforeEach(async () => {
    server = await startLoopbackServer({ protocol: 'h2c' });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await server.close();
  });

  it('Converse: a 429 with x-amzn-errortype throws ThrottlingException; the path prefix is kept', async () => {
    const scenario = scenarioOf({
      kind: 'http',
      status: 429,
      headers: {
        'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/',
      },
      body: '{"message":"Too many requests, please wait before trying again."}',
    });
    const client = clientFor(server.baseUrlFor(scenario));
    const error: any = await client
      .send(new bedrock.ConverseCommand(converse))
      .catch((caught: unknown) => caught);
    expect(error.name).toBe('ThrottlingException');
    expect(error.$metadata.httpStatusCode).toBe(429);
    expect(error.message).toBe('Too many requests, please wait before trying again.');
    const [request] = server.requests(scenario);
    expect(request!.subPath).toBe('/model/anthropic.claude-3-haiku/converse');
    expect(request!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it('ConverseStream: events, then an exception frame, reach the iterator', async () => {
    const scenario = scenarioOf({
      kind: 'aws-event-stream',
      messages: [
        {
          headers: {
            ':message-type': 'event',
            ':event-type': 'messageStart',
            ':content-type': 'application/json',
          },
          payload: '{"role":"assistant"}',
        },
        {
          headers: {
            ':message-type': 'exception',
            ':exception-type': 'modelStreamErrorException',
            ':content-type': 'application/json',
          },
          payload: '{"message":"Model stream error","originalStatusCode":500}',
        },
      ],
      then: 'end',
    });
    const client = clientFor(server.baseUrlFor(scenario));
    const response = await client.send(new bedrock.ConverseStreamCommand(converse));
    const events: unknown[] = [];
    const error: any = await (async () => {
      for await (const event of response.stream) events.push(event);
    })().catch((caught: unknown) => caught);
    expect(events).toEqual([{ messageStart: { role: 'assistant' } }]);
    expect(error.name).toBe('ModelStreamErrorException');
    expect(server.requests(scenario)[0]!.subPath).toBe('/model/anthropic.claude-3-haiku/converse-stream');
  });

  it('ConverseStream: a cut inside a frame throws "Truncated event message received."', async () => {
    const scenario = scenarioOf({
      kind: 'aws-event-stream',
      messages: [
        {
          headers: {
            ':message-type': 'event',
            ':event-type': 'messageStart',
            ':content-type': 'application/json',
          },
          payload: '{"role":"assistant"}',
        },
        {
          headers: {
            ':message-type': 'event',
            ':event-type': 'contentBlockDelta',
            ':content-type': 'application/json',
          },
          payload: '{"contentBlockIndex":0,"delta":{"text":"Hello there"}}',
        },
      ],
      then: 'cut',
      cutMidMessage: true,
    });
    const client = clientFor(server.baseUrlFor(scenario));
    const response = await client.send(new bedrock.ConverseStreamCommand(converse));
    const events: unknown[] = [];
    const error: any = await (async () => {
      for await (const event of response.stream) events.push(event);
    })().catch((caught: unknown) => caught);
    expect(events).toHaveLength(1);
    expect(error?.message).toBe('Truncated event message received.');
  });
});
