import { guardStream as guardMistralStream } from '@faultline/extract-mistral';
import { defineDriver, drain, PROMPT } from '../define.ts';

const model = 'mistral-small-latest';

/** Canary credentials: never real, and the reliability suite checks they reach no output. */
const credentials = ['faultlineCanaryMistralKey000000000'] as const;

/** @mistralai/mistralai: chat.complete and chat.stream. */
export default defineDriver<typeof import('@mistralai/mistralai')>({
  model,
  credentials,
  retryPolicies: { default: 'default', enabled: 'retryConfig backoff' },
  operation: (_api, stream) => (stream === true ? 'chat.stream' : 'chat.complete'),
  async call({ sdk, baseUrl, stream, signal, timeoutMs, sdkRetries, guard }) {
    const retryConfig =
      sdkRetries === 'off'
        ? { retryConfig: { strategy: 'none' as const } }
        : sdkRetries === 'enabled'
          ? {
              retryConfig: {
                strategy: 'backoff' as const,
                backoff: {
                  initialInterval: 500,
                  maxInterval: 60_000,
                  exponent: 1.5,
                  maxElapsedTime: 3_600_000,
                },
                retryConnectionErrors: true,
              },
            }
          : {};
    // The SDK fetches a clone of the Request it builds with the signal, and undici links a clone
    // to its source only through weak references (nodejs/undici#4068): after a garbage collection
    // the abort of faultline's deadline was lost and the call hung. Handing fetch the signal itself
    // keeps the link strong.
    const httpClient = new sdk.HTTPClient({
      fetcher: (input, init) => fetch(input, signal === undefined ? init : { ...init, signal }),
    });
    const client = new sdk.Mistral({
      apiKey: credentials[0],
      serverURL: baseUrl,
      timeoutMs,
      httpClient,
      ...retryConfig,
    });
    const messages = [{ role: 'user' as const, content: PROMPT }];
    if (stream === true) {
      return drain(
        guardMistralStream(
          await client.chat.stream({ model, messages }, { fetchOptions: { signal } }),
          guard,
        ),
      );
    }
    return client.chat.complete({ model, messages }, { fetchOptions: { signal } });
  },
});
