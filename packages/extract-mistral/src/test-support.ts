import type { Classification, ProviderErrorMetadata } from '@faultline/classify';
import { classifyError } from '@faultline/render';
import { mistralExtractor } from './extract-mistral.ts';

/** The whole pipeline as a user runs it: mistralExtractor, then render's built-in extractors, then classify. */
export function classifyThrown(
  error: unknown,
  options: { streaming?: boolean; signal?: AbortSignal } = {},
): { metadata: ProviderErrorMetadata; classification: Classification } {
  const faultline = classifyError(error, {
    extractors: [mistralExtractor],
    streaming: options.streaming === true,
    signal: options.signal,
  });
  return { metadata: faultline.metadata, classification: faultline.classification };
}

/** What the SDK hands its fetcher (both majors): a request, or a URL and its options. */
type Fetcher = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/**
 * A client's options whose fetcher is handed the SDK's own `timeoutMs` as its signal, directly (the
 * fetcher recipe of the README). The SDK puts its `AbortSignal.timeout(timeoutMs)` on a `Request`
 * and fetches a clone of it; Node's fetch follows a Request's signal only while that Request lives,
 * so after a garbage collection a stalled stream outlives the SDK's timeout (every stream did, with
 * `gc()` run mid-stream) and a case would hang instead of recording what the SDK throws. The error
 * is the same: the signal's DOMException TimeoutError, mid-stream or wrapped before the answer.
 */
export function timedClientOptions<H>(
  HTTPClient: new (options: { fetcher: Fetcher }) => H,
  serverURL: string,
  timeoutMs: number,
): { apiKey: string; serverURL: string; timeoutMs: number; httpClient: H } {
  const fetcher: Fetcher = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  return { apiKey: 'test-key', serverURL, timeoutMs, httpClient: new HTTPClient({ fetcher }) };
}
