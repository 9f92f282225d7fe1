import { CohereClientV2 } from 'cohere-ai';
import { CohereClientV2 as CohereClientV2V7 } from 'cohere-ai-v7';

interface RequestOptions {
  readonly abortSignal?: AbortSignal | undefined;
  readonly timeoutInSeconds?: number | undefined;
  readonly maxRetries?: number | undefined;
}

/** The part of the v2 client the tests call (both majors alike). */
export interface CohereClient {
  chat(request: object, options?: RequestOptions): Promise<unknown>;
  chatStream(request: object, options?: RequestOptions): Promise<AsyncIterable<unknown>>;
  embed(request: object, options?: RequestOptions): Promise<unknown>;
}

/** Each supported major of cohere-ai, by its devDependency alias. */
export const SDKS = [
  { alias: 'cohere-ai', Client: CohereClientV2 },
  { alias: 'cohere-ai-v7', Client: CohereClientV2V7 as unknown as typeof CohereClientV2 },
] as const;
export type Sdk = (typeof SDKS)[number];

/** A planted key: no serialised output may carry it. */
export const SECRET_KEY = 'co-SECRET-KEY-0123456789abcdef';

/** A v2 client at `baseUrl`, its own retries off (faultline owns retries). */
export function clientOf(
  sdk: Sdk,
  baseUrl: string,
  timeoutMs: number,
  fetch?: typeof globalThis.fetch,
): CohereClient {
  return new sdk.Client({
    token: SECRET_KEY,
    baseUrl,
    maxRetries: 0,
    timeoutInSeconds: timeoutMs / 1000,
    ...(fetch === undefined ? {} : { fetch }),
  }) as unknown as CohereClient;
}

/** The request of each API a scenario names (`chat`, `embed`); a chat stream when `stream`. */
export function callApi(
  client: CohereClient,
  api: string | undefined,
  stream: boolean,
  options: RequestOptions = {},
): Promise<unknown> {
  if (api === 'embed') {
    return client.embed(
      {
        model: 'embed-v4.0',
        texts: ['SECRET-PROMPT hello'],
        inputType: 'search_document',
        embeddingTypes: ['float'],
      },
      options,
    );
  }
  const request = {
    model: 'command-a-03-2025',
    messages: [{ role: 'user', content: 'SECRET-PROMPT hello' }],
  };
  return stream ? client.chatStream(request, options) : client.chat(request, options);
}
