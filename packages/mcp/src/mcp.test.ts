import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type LoopbackServer, loadScenarios, startLoopbackServer } from '@faultline/test-fixtures';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connect as connectExample, runTool } from '../examples/agent.ts';
import { listen } from '../examples/server.ts';
import {
  callToolForModel,
  classifyMcpFailure,
  faultlineToolHandler,
  MCP_REPORT_META_KEY,
  type McpToolResult,
} from './index.ts';

const KEY = 'sk-proj-McpCanaryKey0123456789abcdef';
const PROMPT = 'PROMPT-CANARY: the text to summarise';
const scenario = (id: string) => loadScenarios('openai').find((candidate) => candidate.id === id)!;

/** What the test server's tools were asked, by tool name. */
const calls = new Map<string, number>();
const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);

function testServer(): McpServer {
  const server = new McpServer({ name: 'failures', version: '1.0.0' });
  server.registerTool(
    'throws',
    { inputSchema: {} },
    faultlineToolHandler(async () => {
      count('throws');
      throw new Error(`inventory lookup failed with key ${KEY}`);
    }),
  );
  server.registerTool('throws-unwrapped', { inputSchema: {} }, async () => {
    throw new Error(`inventory lookup failed with key ${KEY}`);
  });
  for (const [name, annotations] of [
    ['hangs', { readOnlyHint: false }],
    ['hangs-read-only', { readOnlyHint: true }],
  ] as const)
    server.registerTool(name, { inputSchema: {}, annotations }, async (_args, extra) => {
      count(name);
      // Never answers: ends only when the client cancels the request.
      await new Promise((resolve) => extra.signal.addEventListener('abort', resolve));
      return { content: [] };
    });
  server.registerTool('typed', { inputSchema: { count: z.number() } }, async ({ count: value }) => ({
    content: [{ type: 'text', text: String(value) }],
  }));
  return server;
}

const servers: Server[] = [];
const clients: Client[] = [];

/** Serves `build()` over streamable HTTP on 127.0.0.1, a fresh server per request (stateless). */
async function serve(build: () => McpServer): Promise<Server> {
  const http = createHttpServer(async (request, response) => {
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  servers.push(http);
  return http;
}

const urlOf = (http: Server) => new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);

async function connect(http: Server): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(urlOf(http)));
  clients.push(client);
  return client;
}

function envelope(result: unknown): Record<string, unknown> {
  const text = (result as McpToolResult).content[0]?.text ?? '';
  return JSON.parse(text) as Record<string, unknown>;
}

let loopback: LoopbackServer;
let failures: Server;
beforeAll(async () => {
  loopback = await startLoopbackServer();
  failures = await serve(testServer);
});
afterEach(() => calls.clear());
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  for (const http of servers) {
    http.closeAllConnections();
    http.close();
  }
  await loopback?.close();
});

describe('a tool that throws', () => {
  it('wrapped: an isError result the model can act on, the report for the client, no secret sent', async () => {
    const client = await connect(failures);
    const result = await client.callTool({ name: 'throws', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain('McpCanaryKey');
    expect(envelope(result)).toMatchObject({ error: 'unknown', decision: 'tell_model', retryable: false });
    expect(result._meta?.[MCP_REPORT_META_KEY]).toMatchObject({ reason: 'unknown', retryable: false });
    const failure = classifyMcpFailure(result);
    expect(failure.decision).toBe('tell_model');
    expect(failure.report.reason).toBe('unknown');
  });

  it("unwrapped: the SDK's own text is read, and the envelope handed on is scrubbed", async () => {
    const client = await connect(failures);
    const result = await client.callTool({ name: 'throws-unwrapped', arguments: {} });
    // What the SDK sends by default: the thrown message, key included.
    expect(JSON.stringify(result)).toContain('McpCanaryKey');
    const failure = classifyMcpFailure(result);
    expect(failure.decision).toBe('tell_model');
    expect(JSON.stringify(failure.result)).not.toContain('McpCanaryKey');
  });
});

describe("a tool that never answers within the client's timeout", () => {
  it('is interrupted: the tool may have run, so it is repeated only when the tool says that is safe', async () => {
    const client = await connect(failures);
    const thrown = await client.callTool({ name: 'hangs', arguments: {} }, undefined, { timeout: 200 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const failure = classifyMcpFailure(thrown);
    expect(failure.jsonRpcCode).toBe(-32001);
    expect(failure.report).toMatchObject({
      reason: 'interrupted',
      retryable: false,
      retryOnlyIfIdempotent: true,
    });
    expect(failure.decision).toBe('tell_model');
    const { tools } = await client.listTools();
    const readOnly = tools.find((tool) => tool.name === 'hangs-read-only');
    expect(classifyMcpFailure(thrown, { tool: readOnly }).decision).toBe('retry');
  });

  it('callToolForModel repeats it for a read-only tool only, then hands the model the envelope', async () => {
    const client = await connect(failures);
    const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 };
    const { tools } = await client.listTools();
    for (const [name, sent] of [
      ['hangs', 1],
      ['hangs-read-only', 2],
    ] as const) {
      const tool = tools.find((candidate) => candidate.name === name);
      const result = await callToolForModel(client, { name, arguments: {} }, { tool, timeoutMs: 200, retry });
      expect(calls.get(name), name).toBe(sent);
      expect(envelope(result), name).toMatchObject({ error: 'interrupted', decision: 'tell_model' });
    }
  });

  it("the caller's abort leaves untouched and is decided `stop`", async () => {
    const client = await connect(failures);
    const controller = new AbortController();
    const pending = callToolForModel(client, { name: 'hangs', arguments: {} }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const thrown = await pending.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBe(controller.signal.reason);
    expect(classifyMcpFailure(thrown, { signal: controller.signal }).decision).toBe('stop');
  });
});

describe('a server that closes', () => {
  it('before the call: the connection is refused, a retry can help', async () => {
    const closing = await serve(testServer);
    const client = await connect(closing);
    closing.closeAllConnections();
    await new Promise((resolve) => closing.close(resolve));
    const thrown = await client.callTool({ name: 'typed', arguments: { count: 1 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const failure = classifyMcpFailure(thrown);
    expect(failure.report).toMatchObject({ reason: 'connection', retryable: true });
    expect(failure.decision).toBe('retry');
  });

  it('during the call: the answer never comes, interrupted', async () => {
    const closing = await serve(testServer);
    const client = await connect(closing);
    const pending = client.callTool({ name: 'hangs', arguments: {} }, undefined, { timeout: 300 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    closing.closeAllConnections();
    closing.close();
    const failure = classifyMcpFailure(await pending);
    expect(failure.report.reason).toBe('interrupted');
    expect(failure.decision).toBe('tell_model');
  });

  it('answering an HTTP error: the status decides, as a provider’s would', async () => {
    for (const [status, reason, decision] of [
      [503, 'overloaded', 'retry'],
      [401, 'auth', 'tell_model'],
    ] as const) {
      const http = createHttpServer((_request, response) => response.writeHead(status).end());
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      servers.push(http);
      const thrown = await connect(http).then(
        () => undefined,
        (error: unknown) => error,
      );
      const failure = classifyMcpFailure(thrown);
      expect(failure.report.reason, String(status)).toBe(reason);
      expect(failure.decision, String(status)).toBe(decision);
      // The SSE transport (deprecated, still served) reports the same answer as its SseError.
      const sse = new Client({ name: 'test-agent', version: '1.0.0' });
      const thrownBySse = await sse.connect(new SSEClientTransport(urlOf(http))).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(classifyMcpFailure(thrownBySse).report.reason, `SSE ${status}`).toBe(reason);
    }
  });
});

describe('a request the server cannot read (a protocol disagreement)', () => {
  it('a body rewritten on its way (the JSON-RPC version dropped): -32700 in a 400, endpoint, the model is told', async () => {
    // A body parser in front of the SDK's transport that rewrites tool calls, as a proxy can.
    const http = createHttpServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const message = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      const { jsonrpc: _dropped, ...rewritten } = message;
      const server = testServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => void server.close());
      await server.connect(transport);
      const body = text === '' ? undefined : message.method === 'tools/call' ? rewritten : message;
      await transport.handleRequest(request, response, body);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    servers.push(http);
    const client = await connect(http);
    const thrown = await client.callTool({ name: 'typed', arguments: { count: 1 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const failure = classifyMcpFailure(thrown);
    expect(failure.jsonRpcCode).toBe(-32700);
    expect(failure.report).toMatchObject({
      reason: 'endpoint',
      retryable: false,
      nextStep: 'fix_configuration',
      decidedBy: { rule: 'assigned', evidence: 'JSON-RPC error -32700' },
    });
    expect(failure.decision).toBe('tell_model');
  });

  it("a session header dropped on its way: the SDK server's refusal (-32000, id null) is endpoint too", async () => {
    // One stateful server (sessions), behind a proxy that loses the session header of tool calls.
    const server = testServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await server.connect(transport);
    const http = createHttpServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const message = (text === '' ? {} : JSON.parse(text)) as Record<string, unknown>;
      if (message.method === 'tools/call') {
        delete request.headers['mcp-session-id'];
        const at = request.rawHeaders.findIndex((name) => name.toLowerCase() === 'mcp-session-id');
        if (at >= 0) request.rawHeaders.splice(at, 2);
      }
      await transport.handleRequest(request, response, text === '' ? undefined : message);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    servers.push(http);
    const client = await connect(http);
    const thrown = await client.callTool({ name: 'typed', arguments: { count: 1 } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(String(thrown)).toContain('Mcp-Session-Id header is required');
    const failure = classifyMcpFailure(thrown);
    expect(failure.report).toMatchObject({
      reason: 'endpoint',
      decidedBy: { evidence: 'status 400, JSON-RPC error -32000 (id null)' },
    });
    expect(failure.decision).toBe('tell_model');
    await server.close();
  });
});

describe('calls the model must change', () => {
  it('invalid params: change the arguments', async () => {
    const client = await connect(failures);
    const result = await client.callTool({ name: 'typed', arguments: { count: 'three' } });
    const failure = classifyMcpFailure(result);
    expect(failure.jsonRpcCode).toBe(-32602);
    expect(failure.report.reason).toBe('invalid_request');
    expect(failure.decision).toBe('change_arguments');
    expect(envelope(failure.result)).toMatchObject({
      error: 'invalid_request',
      decision: 'change_arguments',
    });
  });

  it('an unknown tool: change the call; an unknown method: the server does not serve it', async () => {
    const client = await connect(failures);
    const unknownTool = classifyMcpFailure(await client.callTool({ name: 'no-such-tool', arguments: {} }));
    expect(unknownTool.decision).toBe('change_arguments');
    const thrown = await client.request({ method: 'no/such-method' }, EmptyResultSchema).then(
      () => undefined,
      (error: unknown) => error,
    );
    const unknownMethod = classifyMcpFailure(thrown);
    expect(unknownMethod.jsonRpcCode).toBe(-32601);
    expect(unknownMethod.report.reason).toBe('not_found');
    expect(unknownMethod.decision).toBe('tell_model');
  });
});

describe("an upstream model's failure inside the tool, carried as a FaultlineError", () => {
  async function summaryClient(scenarioId: string) {
    const upstream = scenario(scenarioId);
    const openai = new OpenAI({ baseURL: loopback.baseUrlFor(upstream), apiKey: KEY, maxRetries: 0 });
    const http = await listen(openai);
    servers.push(http);
    return { upstream, client: await connect(http) };
  }

  it("a rate limit: retry the tool after the provider's wait", async () => {
    const { upstream, client } = await summaryClient('openai/rate-limit-retry-after-ms');
    const result = await client.callTool({ name: 'summarise', arguments: { text: PROMPT } });
    const failure = classifyMcpFailure(result);
    expect(failure.report).toMatchObject({
      reason: upstream.expected.reason,
      provider: 'openai',
      retryAfterSeconds: upstream.expected.retryAfterSeconds,
    });
    expect(failure.decision).toBe('retry');
    const sent = JSON.stringify(result);
    expect(sent).not.toContain('McpCanaryKey');
    expect(sent).not.toContain('PROMPT-CANARY');
    expect(loopback.requests(upstream)).toHaveLength(1);
  });

  it("a spent quota: the docs' agent does not repeat it and tells the model", async () => {
    const upstream = scenario('openai/insufficient-quota');
    const openai = new OpenAI({ baseURL: loopback.baseUrlFor(upstream), apiKey: KEY, maxRetries: 0 });
    const http = await listen(openai);
    servers.push(http);
    const client = await connectExample(urlOf(http).href);
    clients.push(client);
    const result = await runTool(client, 'summarise', { text: PROMPT });
    expect(envelope(result)).toMatchObject({ error: upstream.expected.reason, decision: 'tell_model' });
    expect(loopback.requests(upstream)).toHaveLength(1);
  });
});
