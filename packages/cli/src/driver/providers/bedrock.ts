import { guardStream as guardBedrockStream } from '@faultline/extract-bedrock';
import { defineDriver, drain, PROMPT } from '../define.ts';

const modelId = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

function isInvokeModel(api: string | undefined): boolean {
  return api !== undefined && /^invoke/i.test(api);
}

/** Canary credentials: never real, and the reliability suite checks they reach no output. */
const credentials = ['AKIAIOSFODNN7EXAMPLE', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'] as const;

/** @aws-sdk/client-bedrock-runtime over h2c: Converse, ConverseStream and InvokeModel. */
export default defineDriver<typeof import('@aws-sdk/client-bedrock-runtime')>({
  model: modelId,
  credentials,
  retryPolicies: { default: 'standard retry (3 attempts)' },
  operation: (api, stream) =>
    isInvokeModel(api)
      ? 'InvokeModel'
      : api === 'converse-stream' || stream === true
        ? 'ConverseStream'
        : 'Converse',
  async call({ sdk, baseUrl, api, stream, signal, timeoutMs, sdkRetries, guard }) {
    // The SDK warns once per process that future releases need Node 22: not the driver's news.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    const [accessKeyId, secretAccessKey] = credentials;
    const client = new sdk.BedrockRuntimeClient({
      endpoint: baseUrl,
      region: 'us-east-1',
      credentials: { accessKeyId, secretAccessKey },
      ...(sdkRetries === 'off' ? { maxAttempts: 1 } : {}),
      requestHandler: { requestTimeout: timeoutMs, connectionTimeout: timeoutMs },
    });
    try {
      if (isInvokeModel(api)) {
        const body = JSON.stringify({
          anthropic_version: 'bedrock-2023-05-31',
          max_tokens: 64,
          messages: [{ role: 'user', content: PROMPT }],
        });
        return await client.send(
          new sdk.InvokeModelCommand({ modelId, body, contentType: 'application/json' }),
          {
            abortSignal: signal,
          },
        );
      }
      const converse = { modelId, messages: [{ role: 'user' as const, content: [{ text: PROMPT }] }] };
      if (api === 'converse-stream' || stream === true) {
        const response = await client.send(new sdk.ConverseStreamCommand(converse), { abortSignal: signal });
        return response.stream === undefined ? [] : await drain(guardBedrockStream(response.stream, guard));
      }
      return await client.send(new sdk.ConverseCommand(converse), { abortSignal: signal });
    } finally {
      client.destroy();
    }
  },
});
