// An MCP server over stdio, started by the tests as a child process (`node stdio-server.mjs`): the
// SDK's own McpServer and StdioServerTransport, with tools that fail the way stdio servers do in the
// field. Plain JavaScript so that Node runs it without a loader.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'stdio-failures', version: '1.0.0' });

// The process dies while the call is pending (a crash, an out-of-memory kill).
server.registerTool('exits', { inputSchema: {} }, async () => {
  process.exit(1);
});

// Never answers: the call ends only by the client's timeout or cancellation.
for (const [name, annotations] of [
  ['hangs', { readOnlyHint: false }],
  ['hangs-read-only', { readOnlyHint: true }],
]) {
  server.registerTool(
    name,
    { inputSchema: {}, annotations },
    (_args, extra) =>
      new Promise((resolve) => {
        extra.signal.addEventListener('abort', () => resolve({ content: [] }));
      }),
  );
}

// Logs to stdout (the usual mistake: console.log in a stdio server), then answers.
server.registerTool('logs-then-answers', { inputSchema: {} }, async () => {
  process.stdout.write('Fetching weather for Paris...\n');
  return { content: [{ type: 'text', text: 'sunny' }] };
});

// Writes its answer as something that is not JSON-RPC (a coloured line, then JSON that is not a
// JSON-RPC message): the client can never read it.
server.registerTool('answers-garbage', { inputSchema: {} }, async () => {
  process.stdout.write('\u001b[32mOK\u001b[0m {"result": sunny}\n{"result": "sunny"}\n');
  return new Promise(() => undefined);
});

await server.connect(new StdioServerTransport());
