import type { ProviderErrorMetadata } from './schemas.ts';

/**
 * A provider's HTTP failure as any transport sees it: the AI SDK's `APICallError`, LangChain's
 * wrapped SDK error, a raw `fetch`, the CLI. Each `@faultline/extract-<provider>` package reads it
 * with `read<Provider>HttpFailure(response)`, the same rules its SDK extractor applies to the
 * SDK's own error (one function serves both paths).
 */
export interface HttpFailure {
  /**
   * The HTTP status the provider answered with; `undefined` for an error event inside a stream
   * that began with 200 (the body is then the event's JSON).
   */
  readonly status: number | undefined;
  /** Response headers: a `Headers`, a plain object (any case), a `Map` or `[name, value]` pairs. */
  readonly headers?: unknown;
  /** The response body as text, verbatim (JSON, HTML, '', truncated). Never serialised. */
  readonly body?: string | undefined;
  /** The URL that was called (read by callers to pick the provider; never serialised). */
  readonly url?: string | undefined;
}

/**
 * Every adapter's `readHttpFailure`: its extractor's rules for a failed answer read by any HTTP
 * client, `{ status, headers, body }` in, provider metadata out. Total: any status, headers or body.
 */
export type HttpFailureReader = (
  failure: HttpFailure,
  options?: HttpFailureReadOptions,
) => ProviderErrorMetadata;

/** Options of every `read<Provider>HttpFailure`; any other key is a TypeError at the call. */
export interface HttpFailureReadOptions {
  /** The clock (epoch milliseconds) for HTTP-date Retry-After headers; defaults to `Date.now()`. */
  readonly now?: number;
  /** The error class of the transport that saw the failure (e.g. `APICallError`), for the report. */
  readonly sdkErrorType?: string;
}

/**
 * The keys of `HttpFailureReadOptions`. Every `readHttpFailure` refuses any other key with a
 * TypeError at the call (a programming error); it never throws on a status, header or body.
 */
export const HTTP_FAILURE_READ_OPTION_KEYS = { now: true, sdkErrorType: true } as const satisfies Record<
  keyof HttpFailureReadOptions,
  true
>;
