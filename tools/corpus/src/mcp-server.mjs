// The MCP server of the corpus's stdio cases, started as a child process by mcp.ts: it answers
// `initialize`, then answers the tool call as the case records (FAULTLINE_MCP_ANSWER): the JSON-RPC
// error or result written verbatim, or the process exits, or it never answers. Hand-written JSON-RPC
// rather than the SDK's McpServer, which would rewrite what the recorded server sent (it prefixes an
// McpError's message and answers a failed handler with a result of its own).
import { createInterface } from 'node:readline';

const answer = JSON.parse(process.env.FAULTLINE_MCP_ANSWER ?? '{}');
const write = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const message = JSON.parse(line);
  // Notifications (no id) need no answer.
  if (message.id === undefined) return;
  if (message.method === 'initialize') {
    write({
      id: message.id,
      result: {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'faultline-corpus', version: '1.0.0' },
      },
    });
  } else if (message.method !== 'tools/call') {
    write({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  } else if (answer.then === 'exit') {
    process.exit(1);
  } else if (answer.then !== 'never-answer') {
    write(
      answer.error === undefined
        ? { id: message.id, result: answer.result }
        : { id: message.id, error: answer.error },
    );
  }
});
// The client closing stdin ends the server, as hosts expect of a stdio server.
lines.on('close', () => process.exit(0));
