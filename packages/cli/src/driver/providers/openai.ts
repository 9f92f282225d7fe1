import { guardOpenAIStream } from '@faultline/extract-openai';
import { defineDriver, drain, PROMPT } from '../define.ts';

const model = 'gpt-4o-mini';

/** openai: chat completions (every OpenAI-compatible `api` of the catalogue is called the same way). */
/** Canary credentials: never real, and the reliability suite checks they reach no output. */
const credentials = ['sk-proj-faultlineCanary0000000000000000000000'] as const;

export default defineDriver<typeof import('openai')>({
  model,
  credentials,
  retryPolicies: { default: 'default' },
  operation: (_api, stream) => `chat.completions.create${stream === true ? ' (stream)' : ''}`,
  async call({ sdk, baseUrl, stream, signal, timeoutMs, sdkRetries, guard }) {
    const client = new sdk.default({
      apiKey: credentials[0],
      baseURL: baseUrl,
      timeout: timeoutMs,
      ...(sdkRetries === 'off' ? { maxRetries: 0 } : {}),
    });
    const messages = [{ role: 'user' as const, content: PROMPT }];
    if (stream === true) {
      const chunks = await client.chat.completions.create({ model, messages, stream: true }, { signal });
      return drain(guardOpenAIStream(chunks, guard));
    }
    return client.chat.completions.create({ model, messages }, { signal });
  },
});
