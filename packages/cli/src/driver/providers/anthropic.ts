import { guardStream as guardAnthropicStream } from '@faultline/extract-anthropic';
import { defineDriver, drain, PROMPT } from '../define.ts';
import { stainlessClientOptions } from '../stainless-chat.ts';

const model = 'claude-sonnet-4-6';

/** Canary credentials: never real, and the reliability suite checks they reach no output. */
const credentials = ['sk-ant-api03-faultlineCanary000000000000000000'] as const;

/** @anthropic-ai/sdk: messages. */
export default defineDriver<typeof import('@anthropic-ai/sdk')>({
  model,
  credentials,
  retryPolicies: { default: 'default' },
  operation: (_api, stream) => `messages.create${stream === true ? ' (stream)' : ''}`,
  async call({ sdk, baseUrl, stream, signal, timeoutMs, sdkRetries, guard }) {
    // A Stainless-generated client, built as openai's and groq's are.
    const client = new sdk.default(
      stainlessClientOptions({ apiKey: credentials[0], baseUrl, timeoutMs, sdkRetries }),
    );
    const body = { model, max_tokens: 64, messages: [{ role: 'user' as const, content: PROMPT }] };
    if (stream === true) {
      return drain(
        guardAnthropicStream(await client.messages.create({ ...body, stream: true }, { signal }), guard),
      );
    }
    return client.messages.create(body, { signal });
  },
});
