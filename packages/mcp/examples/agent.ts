import { callToolForModel } from '@faultline/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/**
 * One tool call of an agent loop. A failure worth retrying is retried (after the wait it
 * names); any other comes back as an isError result whose text tells the model what happened and
 * what to do: `"decision":"change_arguments"` or `"decision":"tell_model"`.
 */
export async function runTool(client: Client, name: string, args: Record<string, unknown>) {
  const { tools } = await client.listTools();
  const tool = tools.find((candidate) => candidate.name === name);
  return callToolForModel(client, { name, arguments: args }, { tool, timeoutMs: 30_000 });
}
