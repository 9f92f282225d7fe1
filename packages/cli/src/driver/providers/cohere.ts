import { guardStream as guardCohereStream } from '@faultline/extract-cohere';
import { defineDriver, drain, PROMPT } from '../define.ts';

const model = 'command-a-03-2025';

/** Canary credentials: never real, and the reliability suite checks they reach no output. */
const credentials = ['faultlineCanaryCohereKey0000000000'] as const;

/**
 * cohere-ai: the v2 client's chat, chatStream and embed. Its retries (2 by default, on 408, 429 and
 * 5xx, honouring Retry-After) are `maxRetries`; its timeout, `timeoutInSeconds`, bounds only the
 * wait for the headers, so a stalled stream is ended by the guard and released by the call's signal.
 */
export default defineDriver<typeof import('cohere-ai')>({
  model,
  credentials,
  retryPolicies: { default: 'maxRetries 2 (default)', enabled: 'maxRetries 5' },
  operation: (api, stream) => (api === 'embed' ? 'embed' : stream === true ? 'chatStream' : 'chat'),
  async call({ sdk, baseUrl, api, stream, signal, timeoutMs, sdkRetries, guard }) {
    const client = new sdk.CohereClientV2({
      token: credentials[0],
      baseUrl,
      timeoutInSeconds: timeoutMs / 1000,
      ...(sdkRetries === 'off' ? { maxRetries: 0 } : sdkRetries === 'enabled' ? { maxRetries: 5 } : {}),
    });
    const options = signal === undefined ? {} : { abortSignal: signal };
    if (api === 'embed') {
      return client.embed(
        { model: 'embed-v4.0', texts: [PROMPT], inputType: 'search_document', embeddingTypes: ['float'] },
        options,
      );
    }
    const messages = [{ role: 'user' as const, content: PROMPT }];
    if (stream === true) {
      return drain(guardCohereStream(await client.chatStream({ model, messages }, options), guard));
    }
    return client.chat({ model, messages }, options);
  },
});
