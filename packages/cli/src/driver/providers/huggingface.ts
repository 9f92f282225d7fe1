import { guardStream as guardHuggingfaceStream } from '@faultline/extract-huggingface';
import { defineDriver, drain, PROMPT } from '../define.ts';

const model = 'meta-llama/Llama-3.1-8B-Instruct';

/** A canary Hugging Face token: never real, and the reliability suite checks it reaches no output. */
const credentials = ['hf_faultlineCanaryHuggingface000000000'] as const;

type Method = 'chatCompletion' | 'textGeneration' | 'featureExtraction';

/** The SDK method a scenario's `api` names: `chatCompletion` (the default), `textGeneration` or `featureExtraction`. */
function methodOf(api: string | undefined): Method {
  return api === 'textGeneration' || api === 'featureExtraction' ? api : 'chatCompletion';
}

/**
 * @huggingface/inference: chatCompletion (stream too), textGeneration and featureExtraction through
 * `endpointUrl` (the SDK's base URL for a dedicated endpoint or any server). The SDK has no timeout:
 * the call's signal carries a deadline. Its only retry is re-sending a 503 at once and without end
 * (`retry_on_error`), which the driver turns off unless the SDK's default is asked for.
 */
export default defineDriver<typeof import('@huggingface/inference')>({
  model,
  credentials,
  retryPolicies: {
    default: 'a 503 re-sent at once, without limit (retry_on_error)',
    enabled: 'a 503 re-sent at once, without limit (retry_on_error)',
  },
  operation: (api, stream) =>
    `${methodOf(api)}${stream === true && methodOf(api) === 'chatCompletion' ? 'Stream' : ''}`,
  async call({ sdk, baseUrl, api, stream, signal, timeoutMs, sdkRetries, guard }) {
    const deadline = AbortSignal.timeout(timeoutMs);
    const client = new sdk.InferenceClient(credentials[0], {
      endpointUrl: baseUrl,
      retry_on_error: sdkRetries !== 'off',
      signal: signal === undefined ? deadline : AbortSignal.any([signal, deadline]),
    });
    const method = methodOf(api);
    if (method === 'featureExtraction') {
      return client.featureExtraction({ model: 'intfloat/multilingual-e5-large', inputs: PROMPT });
    }
    if (method === 'textGeneration') return client.textGeneration({ model, inputs: PROMPT });
    const messages = [{ role: 'user', content: PROMPT }];
    if (stream !== true) return client.chatCompletion({ model, messages });
    return drain(guardHuggingfaceStream(client.chatCompletionStream({ model, messages }), guard));
  },
});
