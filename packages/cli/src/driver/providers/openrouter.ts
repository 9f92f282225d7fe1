import { guardStream as guardOpenRouterStream } from '@faultline/extract-openrouter';
import { defineDriver, drain, PROMPT } from '../define.ts';

const model = 'openai/gpt-4o-mini';

/** Canary credentials: never real, and the reliability suite checks they reach no output. */
const credentials = ['sk-or-v1-faultlineCanaryOpenRouterKey0000'] as const;

/**
 * @openrouter/sdk: chat.send, streamed or not. Its retries (on by default: backoff on 5XX and
 * connection errors for up to an hour) are `retryConfig`; its `timeoutMs` gives way to a signal,
 * so a stalled stream is ended by the guard and released by the call's signal.
 */
export default defineDriver<typeof import('@openrouter/sdk')>({
  model,
  credentials,
  retryPolicies: { default: 'retryConfig backoff on 5XX (default)' },
  operation: (_api, stream) => (stream === true ? 'chat.send (stream)' : 'chat.send'),
  async call({ sdk, baseUrl, stream, signal, timeoutMs, sdkRetries, guard }) {
    // The SDK fetches a clone of the Request it builds with the signal, and undici links a clone
    // to its source only through weak references (nodejs/undici#4068): after a garbage collection
    // the abort of faultline's deadline can be lost and the call hang. Handing fetch the signal
    // itself keeps the link strong.
    const httpClient = new sdk.HTTPClient({
      fetcher: (input, init) => fetch(input, signal === undefined ? init : { ...init, signal }),
    });
    const client = new sdk.OpenRouter({
      apiKey: credentials[0],
      serverURL: baseUrl,
      timeoutMs,
      httpClient,
      ...(sdkRetries === 'off' ? { retryConfig: { strategy: 'none' as const } } : {}),
    });
    const messages = [{ role: 'user' as const, content: PROMPT }];
    const options = signal === undefined ? {} : { signal };
    if (stream === true) {
      // The SDK types both modes' answers as one union; with `stream: true` it is the event stream.
      const chunks = (await client.chat.send(
        { chatRequest: { model, messages, stream: true } },
        options,
      )) as AsyncIterable<unknown>;
      return drain(guardOpenRouterStream(chunks, guard));
    }
    return client.chat.send({ chatRequest: { model, messages } }, options);
  },
});
