import { guardGroqStream } from '@faultline/extract-groq';
import { defineDriver, drain, PROMPT } from '../define.ts';

const model = 'llama-3.3-70b-versatile';

/** groq-sdk: chat completions. */
/** Canary credentials: never real, and the reliability suite checks they reach no output. */
const credentials = ['gsk_faultlineCanary0000000000000000000000000000'] as const;

export default defineDriver<typeof import('groq-sdk')>({
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
      return drain(guardGroqStream(chunks, guard));
    }
    return client.chat.completions.create({ model, messages }, { signal });
  },
});
