/** The SDK's own retries while driving: off (faultline owns retries), a user's default, or turned on. */
export type SdkRetries = 'off' | 'default' | 'enabled';

/** The options a provider's stream guard is given: every driven stream is drained through it. */
export interface GuardOptions {
  readonly idleTimeoutMs: number;
  readonly signal?: AbortSignal;
}

/** One call a provider driver makes: where, what, and with which client settings. */
export interface DriverCall<Sdk> {
  /** The provider's SDK module as loaded by the caller (undefined for a fetch-based provider). */
  readonly sdk: Sdk;
  /** The loopback server's URL for this scenario. */
  readonly baseUrl: string;
  /** The scenario's `api` (`chat`, `responses`, `embeddings`, `vertex`, `invoke-model`, …). */
  readonly api?: string | undefined;
  readonly stream?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
  /** The client's own request timeout, in ms. */
  readonly timeoutMs: number;
  readonly sdkRetries: SdkRetries;
  readonly guard: GuardOptions;
}

/**
 * How to call one provider's client against the loopback server. One module per provider,
 * `packages/cli/src/driver/providers/<name>.ts`, default-exports one of these; the scenario
 * driver finds it by the provider's name in providers.json. `pnpm new-provider` generates it.
 */
export interface ProviderDriver<Sdk = unknown> {
  /** The model every call names (and the report's `model`). */
  readonly model: string;
  /** The credentials the driver sends: canaries that must never reach any output. */
  readonly credentials: readonly string[];
  /**
   * What the SDK's retries are called in a table, after the SDK's name and major (bench): its
   * default (`default`), and its documented retry option turned on, for an SDK that has one.
   */
  readonly retryPolicies?: { readonly default: string; readonly enabled?: string | undefined } | undefined;
  /** The SDK method a call with this `api`/`stream` uses (the report's `operation`). */
  operation(api: string | undefined, stream: boolean | undefined): string;
  /** Calls the client at `baseUrl`, draining a stream through the provider's guard. */
  call(call: DriverCall<Sdk>): Promise<unknown>;
}

/** Types a provider driver module's default export (an identity: the type is the point). */
export function defineDriver<Sdk>(driver: ProviderDriver<Sdk>): ProviderDriver<Sdk> {
  return driver;
}

/** The prompt every driven call sends (a canary: it must never reach any output either). */
export const PROMPT = 'faultline demo prompt: say hello';

/** Reads a stream to its end; the chunks are returned for the caller that wants them. */
export async function drain(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}
