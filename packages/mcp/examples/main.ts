import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { connect, runTool } from './agent.js';
import { listen } from './server.js';

// The tool's model call is retried by one loop only, the agent's: the SDK's own retries are off.
const openai = new OpenAI({ maxRetries: 0 });
const http = await listen(openai);
const client = await connect(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
try {
  const result = await runTool(client, 'summarise', {
    text: 'faultline classifies a failure once, at its source.',
  });
  // Either the tool's answer or, on failure, the envelope the model reads next.
  console.log(JSON.stringify(result.content));
} finally {
  await client.close();
  http.close();
}
