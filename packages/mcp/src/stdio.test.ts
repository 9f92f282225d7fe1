import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { callToolForModel, classifyMcpFailure, type McpToolResult } from './index.ts';

// The stdio transport as hosts use it: the server is a child process the client starts
// (test-servers/stdio-server.mjs: the SDK's McpServer on its StdioServerTransport).
const SERVER = fileURLToPath(new URL('../test-servers/stdio-server.mjs', import.meta.url));
const clients: Client[] = [];

async function start(command = process.execPath, args = [SERVER]) {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  const transportErrors: unknown[] = [];
  client.onerror = (error) => transportErrors.push(error);
  clients.push(client);
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  return { client, transportErrors };
}

const thrownBy = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

function envelope(result: unknown): Record<string, unknown> {
  return JSON.parse((result as McpToolResult).content[0]?.text ?? '') as Record<string, unknown>;
}

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
});

describe('the stdio transport', () => {
  it('a command that cannot be started: the configuration is wrong, the model is told', async () => {
    const thrown = await thrownBy(start('faultline-no-such-mcp-server', []));
    const failure = classifyMcpFailure(thrown);
    expect(failure.report).toMatchObject({
      reason: 'endpoint',
      retryable: false,
      nextStep: 'fix_configuration',
    });
    expect(failure.report.decidedBy).toEqual({ rule: 'assigned', evidence: 'spawn ENOENT' });
    expect(failure.decision).toBe('tell_model');
    expect(envelope(failure.result)).toMatchObject({ error: 'endpoint', decision: 'tell_model' });
  });

  it('a server that exits during the call: interrupted; a call after it was never sent', async () => {
    const { client } = await start();
    const during = classifyMcpFailure(await thrownBy(client.callTool({ name: 'exits', arguments: {} })));
    expect(during.jsonRpcCode).toBe(-32000);
    expect(during.report).toMatchObject({ reason: 'interrupted', retryOnlyIfIdempotent: true });
    expect(during.decision).toBe('tell_model');
    // The transport is closed now: the SDK refuses the next request before writing it.
    const after = classifyMcpFailure(await thrownBy(client.callTool({ name: 'exits', arguments: {} })));
    expect(after.report).toMatchObject({ reason: 'connection', retryable: true });
    expect(after.decision).toBe('retry');
    // callToolForModel retries it, and hands the model the envelope once the retries are spent.
    const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 };
    const result = await callToolForModel(client, { name: 'exits', arguments: {} }, { retry });
    expect(envelope(result)).toMatchObject({ error: 'connection', decision: 'tell_model' });
  });

  it('a server that writes to stdout what is not JSON-RPC', async () => {
    const { client, transportErrors } = await start();
    // A log line before the answer: the call passes; the line reaches onerror, read as an
    // unreadable message of the server's (not a bug of the agent's).
    const answer = await client.callTool({ name: 'logs-then-answers', arguments: {} });
    expect(answer.content).toEqual([{ type: 'text', text: 'sunny' }]);
    expect(transportErrors).toHaveLength(1);
    expect(classifyMcpFailure(transportErrors[0]).report).toMatchObject({
      reason: 'interrupted',
      decidedBy: { rule: 'unreadable_body' },
    });
    // An answer that is not JSON-RPC never arrives as one: the client's timeout ends the call, which
    // may have had its effect.
    const result = await callToolForModel(
      client,
      { name: 'answers-garbage', arguments: {} },
      { timeoutMs: 300, retry: false },
    );
    expect(envelope(result)).toMatchObject({ error: 'interrupted', decision: 'tell_model' });
    // The client reported both lines: one not JSON (a SyntaxError), one not JSON-RPC (the SDK's
    // schema rejecting it), each an answer of the server's that could not be read.
    expect(transportErrors).toHaveLength(3);
    for (const error of transportErrors.slice(1))
      expect(classifyMcpFailure(error).report).toMatchObject({ decidedBy: { rule: 'unreadable_body' } });
  });

  it('a server that never answers: the timeout ends it, replayed only for a read-only tool', async () => {
    const { client } = await start();
    const { tools } = await client.listTools();
    for (const [name, decision] of [
      ['hangs', 'tell_model'],
      ['hangs-read-only', 'retry'],
    ] as const) {
      const thrown = await thrownBy(client.callTool({ name, arguments: {} }, undefined, { timeout: 300 }));
      const tool = tools.find((candidate) => candidate.name === name);
      const failure = classifyMcpFailure(thrown, { tool });
      expect(failure.jsonRpcCode, name).toBe(-32001);
      expect(failure.report.reason, name).toBe('interrupted');
      expect(failure.decision, name).toBe(decision);
    }
  });
});
