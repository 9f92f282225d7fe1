import {
  defineDriver,
  drain,
  type GuardOptions,
  PROMPT,
  type ProviderDriver,
  type SdkRetries,
} from './define.ts';

/** What the driver uses of a Stainless-generated chat SDK (openai, groq-sdk): its default-exported client. */
export interface StainlessChatSdk {
  readonly default: new (options: {
    apiKey: string;
    baseURL: string;
    timeout: number;
    maxRetries?: number;
  }) => {
    readonly chat: {
      readonly completions: {
        create(
          body: Record<string, unknown>,
          options: { signal?: AbortSignal | undefined },
        ): Promise<unknown>;
      };
    };
  };
}

/** The options every Stainless-generated client is built with here: its own retries off unless asked. */
export function stainlessClientOptions(call: {
  readonly apiKey: string;
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly sdkRetries: SdkRetries;
}): { apiKey: string; baseURL: string; timeout: number; maxRetries?: number } {
  return {
    apiKey: call.apiKey,
    baseURL: call.baseUrl,
    timeout: call.timeoutMs,
    ...(call.sdkRetries === 'off' ? { maxRetries: 0 } : {}),
  };
}

export interface StainlessChatOptions {
  readonly model: string;
  /** The canary key the client sends (it must never reach any output). */
  readonly credentials: readonly [string];
  /** The provider's stream guard. */
  readonly guardStream: (stream: AsyncIterable<unknown>, options: GuardOptions) => AsyncIterable<unknown>;
}

/**
 * The driver of a provider whose SDK is a Stainless-generated client with OpenAI's chat
 * completions (openai, groq-sdk): the same client options and the same call, written once; only
 * the model, the key and the stream guard differ.
 */
export function stainlessChatDriver(options: StainlessChatOptions): ProviderDriver<StainlessChatSdk> {
  const { model, credentials, guardStream } = options;
  return defineDriver<StainlessChatSdk>({
    model,
    credentials,
    retryPolicies: { default: 'default' },
    operation: (_api, stream) => `chat.completions.create${stream === true ? ' (stream)' : ''}`,
    async call({ sdk, baseUrl, stream, signal, timeoutMs, sdkRetries, guard }) {
      const client = new sdk.default(
        stainlessClientOptions({ apiKey: credentials[0], baseUrl, timeoutMs, sdkRetries }),
      );
      const messages = [{ role: 'user', content: PROMPT }];
      if (stream === true) {
        const chunks = await client.chat.completions.create({ model, messages, stream: true }, { signal });
        return drain(guardStream(chunks as AsyncIterable<unknown>, guard));
      }
      return client.chat.completions.create({ model, messages }, { signal });
    },
  });
}
