import { createServer as createHttpServer, type Server } from 'node:http';
import { withClassifiedErrors } from '@faultline/extract-openai';
import { faultlineToolHandler } from '@faultline/mcp';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type OpenAI from 'openai';
import { z } from 'zod';

export function createSummaryServer(openai: OpenAI): McpServer {
  const server = new McpServer({ name: 'summaries', version: '1.0.0' });
  server.registerTool(
    'summarise',
    {
      description: 'Summarise a text in one sentence.',
      inputSchema: { text: z.string().max(20_000) },
      annotations: { readOnlyHint: true },
    },
    // A failure inside the tool (here the model's: a rate limit, a spent quota, a bad key) is
    // answered as an isError result the agent can act on, with the report for a faultline client.
    faultlineToolHandler(async ({ text }, extra) => {
      const completion = await withClassifiedErrors(
        ({ signal }) =>
          openai.chat.completions.create(
            { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Summarise: ${text}` }] },
            { signal },
          ),
        // One retry loop, the agent's: it repeats the tool after the wait the report names.
        { signal: extra.signal, retry: false },
      );
      return { content: [{ type: 'text', text: completion.choices[0]?.message.content ?? '' }] };
    }),
  );
  return server;
}

/** Serves a fresh server per request over streamable HTTP (stateless), on 127.0.0.1. */
export async function listen(openai: OpenAI, port = 0): Promise<Server> {
  const http = createHttpServer(async (request, response) => {
    const server = createSummaryServer(openai);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return http;
}
