import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultlineErrorHandler as expressHandler } from './express.ts';
import { faultlineErrorHandler as fastifyHandler } from './fastify.ts';
import { faultlineErrors } from './hono.ts';
import {
  type Answer,
  get,
  ORG_CANARY,
  type Provider,
  readStream,
  SCENARIOS,
  startProvider,
} from './test-support.ts';

type ScenarioName = keyof typeof SCENARIOS;

interface App {
  readonly base: string;
  close(): Promise<void>;
}

/**
 * The same four routes on each framework: a model call answered whole, the same call's failure
 * wrapped by the app in its own Error (the FaultlineError sits on the cause chain), an error that
 * is not faultline's, and a streamed answer.
 */
async function wrapped(provider: Provider, name: ScenarioName): Promise<string> {
  try {
    return await provider.complete(name);
  } catch (error) {
    throw new Error('the greeting handler failed', { cause: error });
  }
}

async function startExpress(provider: Provider): Promise<App> {
  const app = express();
  app.get('/complete/:name', async (request, response) => {
    response.send(await provider.complete(request.params.name as ScenarioName));
  });
  app.get('/wrapped/:name', async (request, response) => {
    response.send(await wrapped(provider, request.params.name as ScenarioName));
  });
  app.get('/plain', () => {
    throw new Error('plain failure');
  });
  app.get('/stream/:name', async (request, response) => {
    response.setHeader('content-type', 'text/plain');
    for await (const text of provider.stream(request.params.name as ScenarioName)) {
      response.write(text);
    }
    response.end();
  });
  app.use(expressHandler());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function startFastify(provider: Provider): Promise<App> {
  const app = Fastify();
  app.setErrorHandler(fastifyHandler());
  app.get<{ Params: { name: ScenarioName } }>('/complete/:name', async (request) =>
    provider.complete(request.params.name),
  );
  app.get<{ Params: { name: ScenarioName } }>('/wrapped/:name', async (request) =>
    wrapped(provider, request.params.name),
  );
  app.get('/plain', async () => {
    throw new Error('plain failure');
  });
  app.get<{ Params: { name: ScenarioName } }>('/stream/:name', async (request, reply) =>
    reply.type('text/plain').send(Readable.from(provider.stream(request.params.name))),
  );
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { base, close: () => app.close() };
}

async function startHono(provider: Provider): Promise<App> {
  const app = new Hono();
  app.use(faultlineErrors());
  app.get('/complete/:name', async (context) =>
    context.text(await provider.complete(context.req.param('name') as ScenarioName)),
  );
  app.get('/wrapped/:name', async (context) =>
    context.text(await wrapped(provider, context.req.param('name') as ScenarioName)),
  );
  app.get('/plain', () => {
    throw new Error('plain failure');
  });
  app.get('/stream/:name', async (context) => {
    const chunks = provider.stream(context.req.param('name') as ScenarioName);
    const encoder = new TextEncoder();
    // Wait for the first chunk before answering: a failure until then is still the route's error
    // (Hono's onError, then this middleware); after it, the body is already on its way.
    const first = await chunks.next();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (first.done) controller.close();
        else controller.enqueue(encoder.encode(first.value));
      },
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/plain' } });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What each framework answers, by itself, for an error that is not faultline's. */
const FRAMEWORKS = [
  { name: 'Express 5', start: startExpress, ownContentType: 'text/html' },
  { name: 'Fastify 5', start: startFastify, ownContentType: 'application/json' },
  { name: 'Hono 4 (@hono/node-server)', start: startHono, ownContentType: 'text/plain' },
] as const;

/** The text the provider streams before its error event, read from the scenario itself. */
function streamedText(name: ScenarioName): string {
  const response = SCENARIOS[name]!.response;
  if (response.kind !== 'sse') throw new Error(`${name} is not a stream`);
  return response.events
    .map((event) => {
      const parsed = JSON.parse(event.data) as { choices?: Array<{ delta?: { content?: string } }> };
      return parsed.choices?.[0]?.delta?.content ?? '';
    })
    .join('');
}

function expectProblem(answer: Answer, name: ScenarioName): Record<string, unknown> {
  const expected = SCENARIOS[name]!.expected;
  expect(answer.status).toBe(expected.httpStatus);
  // Fastify adds `; charset=utf-8` to a string payload.
  expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json(; charset=utf-8)?$/);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(body).toMatchObject({
    type: `urn:faultline:problem:${expected.reason}`,
    status: expected.httpStatus,
    reason: expected.reason,
    category: expected.category,
    retryable: expected.retryable,
  });
  if (expected.retryAfterSeconds !== undefined) {
    expect(body.retryAfterSeconds).toBe(expected.retryAfterSeconds);
    expect(answer.headers.get('retry-after')).toBe(String(Math.ceil(expected.retryAfterSeconds)));
  } else {
    expect(answer.headers.get('retry-after')).toBeNull();
  }
  return body;
}

describe.each(FRAMEWORKS)('$name', ({ start, ownContentType }) => {
  let provider: Provider;
  let app: App;

  beforeAll(async () => {
    provider = await startProvider();
    app = await start(provider);
  });
  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  it('answers a real openai SDK rate limit with problem+json, its status and Retry-After', async () => {
    expectProblem(await get(app.base, '/complete/rateLimit'), 'rateLimit');
  });

  it('answers a failure the app wrapped in its own Error (FaultlineError down the cause chain)', async () => {
    expectProblem(await get(app.base, '/wrapped/invalidKey'), 'invalidKey');
    expectProblem(await get(app.base, '/wrapped/rateLimit'), 'rateLimit');
  });

  it('keeps the API key the provider quoted out of the body', async () => {
    const answer = await get(app.base, '/complete/invalidKey');
    expectProblem(answer, 'invalidKey');
    expect(answer.text).not.toMatch(/sk-proj|xyz1/);
  });

  // Issue 14: render's problemDetails gains `disclosure` (default 'safe': no provider text). Until
  // it lands, `detail` is the provider's scrubbed message, which still names the organization.
  it('keeps the organization id the provider named out of the body', async () => {
    const answer = await get(app.base, '/complete/orgCanary');
    expectProblem(answer, 'orgCanary');
    expect(answer.text).not.toContain(ORG_CANARY);
  });

  it("leaves an error that is not faultline's to the framework's own handling", async () => {
    const answer = await get(app.base, '/plain');
    expect(answer.status).toBe(500);
    expect(answer.headers.get('content-type')).toContain(ownContentType);
    expect(answer.text).not.toContain('urn:faultline');
  });

  it('answers with problem+json when a streamed call fails before its first byte', async () => {
    // The rate limit fails before any byte is streamed: no header is sent yet.
    const answer = await get(app.base, '/stream/rateLimit');
    expectProblem(answer, 'rateLimit');
  });

  it('ends the connection, writing no second response, when the stream fails after the headers were sent', async () => {
    const answer = await readStream(app.base, '/stream/streamError');
    expect(answer.status).toBe(200);
    expect(answer.broken).toBe(true);
    expect(answer.text).toBe(streamedText('streamError'));
    expect(answer.text).not.toContain('problem');
  });
});
