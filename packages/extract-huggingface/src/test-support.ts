import { InferenceClient } from '@huggingface/inference';

/** Each supported major of @huggingface/inference, by its devDependency alias. */
export const SDKS = [{ alias: '@huggingface/inference', InferenceClient }] as const;
export type Sdk = (typeof SDKS)[number];

/** A canary token: never real, and no report may carry it. */
export const TOKEN = 'hf_faultlineCanary00000000000000000000';

/** The signal a call is bounded by: the caller's (when given) and a deadline (the SDK has no timeout of its own). */
function boundOf(options: { signal?: AbortSignal | undefined; timeoutMs: number }): AbortSignal {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  return options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
}

/** A client at `endpointUrl` (the SDK's base URL for a dedicated endpoint or any other server). */
function clientOf(
  sdk: Sdk,
  endpointUrl: string,
  options: { signal?: AbortSignal | undefined; timeoutMs: number },
) {
  // retry_on_error: false: the SDK otherwise re-sends a 503 at once and without end.
  return new sdk.InferenceClient(TOKEN, { endpointUrl, retry_on_error: false, signal: boundOf(options) });
}

const CHAT = {
  model: 'meta-llama/Llama-3.1-8B-Instruct',
  messages: [{ role: 'user', content: 'SECRET-PROMPT hello' }],
};

/** `chatCompletionStream` at `endpointUrl`: the SDK's async generator, not yet read. */
export function openChatStream(
  sdk: Sdk,
  endpointUrl: string,
  options: { signal?: AbortSignal | undefined; timeoutMs: number },
): AsyncIterable<unknown> {
  return clientOf(sdk, endpointUrl, options).chatCompletionStream(CHAT);
}

/**
 * Calls the API a scenario names (`chatCompletion`, the default, `textGeneration` or
 * `featureExtraction`); a stream is drained to its end.
 */
export async function callApi(
  sdk: Sdk,
  endpointUrl: string,
  api: string | undefined,
  stream: boolean,
  options: { signal?: AbortSignal | undefined; timeoutMs: number },
): Promise<unknown> {
  const client = clientOf(sdk, endpointUrl, options);
  switch (api) {
    case 'textGeneration':
      return client.textGeneration({
        model: 'mistralai/Mistral-7B-Instruct-v0.3',
        inputs: 'SECRET-PROMPT hello',
      });
    case 'featureExtraction':
      return client.featureExtraction({
        model: 'intfloat/multilingual-e5-large',
        inputs: 'SECRET-PROMPT hello',
      });
    default: {
      if (!stream) return client.chatCompletion(CHAT);
      const parts: unknown[] = [];
      for await (const part of openChatStream(sdk, endpointUrl, options)) parts.push(part);
      return parts;
    }
  }
}
