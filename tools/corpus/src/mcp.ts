// The corpus's MCP cases: what an MCP server did with a tool call, played to the real MCP client
// (`@modelcontextprotocol/sdk`'s Client, as hosts and agents call tools) and classified by
// `@faultline/mcp`'s classifyMcpFailure from what the client threw or the `isError` result it
// returned. Over stdio a child process (mcp-server.mjs) answers; over streamable HTTP a loopback
// server answers the call's POST with the recorded HTTP answer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { classifyMcpFailure } from '@faultline/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpAnswer, McpCase } from './case.ts';
import type { PathOutcome } from './paths.ts';

const SERVER = fileURLToPath(new URL('./mcp-server.mjs', import.meta.url));

/**
 * The client's request timeout: short where the server never answers (the timeout is what such a
 * case plays), long enough elsewhere that a busy machine cannot turn an answer into a timeout.
 */
const timeoutOf = (answer: McpAnswer): number => (answer.then === 'never-answer' ? 1500 : 10_000);

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/** A streamable HTTP endpoint on 127.0.0.1: `initialize` answered, the tool call answered with `http`. */
async function httpServer(http: NonNullable<McpAnswer['http']>): Promise<Server> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST') {
      // No server-to-client stream: the spec's answer to its GET.
      response.writeHead(405).end();
      return;
    }
    void bodyOf(request).then((message) => {
      if (message.id === undefined) {
        response.writeHead(202).end();
      } else if (message.method === 'initialize') {
        const params = message.params as { protocolVersion: string };
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: 'faultline-corpus', version: '1.0.0' },
            },
          }),
        );
      } else {
        const body = typeof http.body === 'string' ? http.body : JSON.stringify(http.body);
        response.writeHead(http.status, { 'content-type': 'application/json', ...http.headers }).end(body);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** Plays one MCP case: connect, call the tool, classify what came back. */
export async function playMcp(entry: McpCase): Promise<PathOutcome> {
  const answer = entry.mcp;
  const client = new Client({ name: 'faultline-corpus', version: '1.0.0' });
  let http: Server | undefined;
  try {
    let transport: Transport;
    if (answer.http === undefined) {
      transport = new StdioClientTransport({
        command: process.execPath,
        args: [SERVER],
        env: { FAULTLINE_MCP_ANSWER: JSON.stringify(answer) },
        stderr: 'ignore',
      });
    } else {
      http = await httpServer(answer.http);
      const { port } = http.address() as AddressInfo;
      transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`));
    }
    await client.connect(transport);
    const result = await client.callTool({ name: 'tool', arguments: {} }, undefined, {
      timeout: timeoutOf(answer),
    });
    return result.isError === true
      ? { kind: 'error', error: classifyMcpFailure(result).error }
      : { kind: 'success' };
  } catch (error) {
    return { kind: 'error', error: classifyMcpFailure(error).error };
  } finally {
    await client.close();
    http?.closeAllConnections();
    http?.close();
  }
}
