// A caller's own file for uncaught-summary.test.ts: a real openai call through the adapter's
// withClassifiedErrors against the loopback server's rate-limit answer, its failure left uncaught.
import { loadScenario, startLoopbackServer } from '@faultline/test-fixtures';
import OpenAI from 'openai';
import { withClassifiedErrors } from '../src/index.ts';

const scenario = loadScenario('openai/rate-limit-retry-after-ms');
const server = await startLoopbackServer({ protocol: 'http1' });
const client = new OpenAI({
  apiKey: 'sk-test-faultline',
  baseURL: server.baseUrlFor(scenario, { pathPrefix: '/v1' }),
  maxRetries: 0,
});

async function askTheModel(): Promise<unknown> {
  return await withClassifiedErrors(
    () =>
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }),
    { model: 'gpt-4o-mini' },
  );
}

try {
  await askTheModel();
} finally {
  await server.close();
}
