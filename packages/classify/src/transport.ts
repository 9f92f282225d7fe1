import { causeChain, constructorName, messageOf, safeGet } from './read.ts';
import type { FailureOrigin, NetworkPhase } from './schemas.ts';

/** What a Node/undici/fetch transport failure says about itself, read from its cause chain. */
export interface TransportFailure {
  readonly origin: Extract<FailureOrigin, 'network' | 'timeout' | 'abort'>;
  readonly networkPhase: NetworkPhase;
  readonly networkCode?: string;
  readonly message: string;
}

// Node's and undici's error codes, by the phase they prove. Seen in docs/contributing/sdk-surfaces.md section 8.
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'ERR_INVALID_URL']);
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ECONNABORTED',
]);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ESOCKETTIMEDOUT',
]);
const DROP_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_GOAWAY_SESSION',
]);
const ALL_CODES = new Set([...DNS_CODES, ...CONNECT_CODES, ...TIMEOUT_CODES, ...DROP_CODES]);

// Messages of transport errors that carry no code. Seen: undici ("fetch failed", "terminated",
// "other side closed"), node-fetch ("Premature close"), Node http ("socket hang up"),
// AWS h2 ("http2 request did not get a response"), AWS event stream ("Truncated event message").
const DROP_MESSAGES = [
  /^terminated$/i,
  /other side closed/i,
  /premature close/i,
  /socket hang up/i,
  /did not get a response/i,
  /truncated event message/i,
  /^aborted$/i,
];

/** The first known transport error code on the cause chain (also inside "caused by: connect ECONNREFUSED"). */
export function findNetworkCode(error: unknown): string | undefined {
  for (const link of causeChain(error, 10)) {
    const code = safeGet(link, 'code');
    if (typeof code === 'string' && ALL_CODES.has(code)) return code;
    const errno = safeGet(link, 'errno');
    if (typeof errno === 'string' && ALL_CODES.has(errno)) return errno;
  }
  for (const link of causeChain(error, 10)) {
    const match = /\b(E[A-Z]{4,}|UND_ERR_[A-Z_]+)\b/.exec(messageOf(link, 1000));
    if (match?.[1] && ALL_CODES.has(match[1])) return match[1];
  }
  return undefined;
}

function isAbortLike(value: unknown): boolean {
  const name = safeGet(value, 'name');
  const code = safeGet(value, 'code');
  return name === 'AbortError' || code === 20 || code === 'ABORT_ERR';
}

function isTimeoutLike(value: unknown): boolean {
  const name = safeGet(value, 'name');
  const code = safeGet(value, 'code');
  return name === 'TimeoutError' || code === 23 || (typeof code === 'string' && TIMEOUT_CODES.has(code));
}

/**
 * Reads a raw transport failure (undici's `TypeError: fetch failed`, `terminated`, node-fetch's
 * `FetchError`, Node's `AbortError`/`TimeoutError`, AWS h2 errors) from its cause chain. Returns
 * `undefined` when nothing on the chain is a transport failure, so a `TypeError` from the caller's
 * own code is left alone.
 *
 * `signal` is the caller's own AbortSignal: an AbortError while it has fired is the caller's
 * abort; otherwise an AbortError is some deadline firing (genai reports its timeout that way).
 */
export function inspectTransportError(
  error: unknown,
  signal?: AbortSignal,
  streaming = false,
): TransportFailure | undefined {
  const chain = causeChain(error, 10);
  if (chain.length === 0) return undefined;
  const head = chain[0];
  const message = messageOf(head, 1000);
  const callerAborted = signal?.aborted === true;

  if (chain.some(isAbortLike) && !chain.some(isTimeoutLike)) {
    if (callerAborted) return { origin: 'abort', networkPhase: 'unknown', message: message || 'Aborted' };
    return {
      origin: 'timeout',
      networkPhase: streaming ? 'stream' : 'unknown',
      message: message || 'Aborted',
    };
  }
  if (chain.some(isTimeoutLike)) {
    if (callerAborted) return { origin: 'abort', networkPhase: 'unknown', message: message || 'Aborted' };
    const noResponse = chain.some((link) => /did not get a response/i.test(messageOf(link, 500)));
    if (noResponse) {
      return { origin: 'network', networkPhase: 'before_response', message };
    }
    const code = findNetworkCode(error);
    return {
      origin: 'timeout',
      networkPhase: streaming ? 'stream' : code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : 'unknown',
      ...(code ? { networkCode: code } : {}),
      message: message || 'Timed out',
    };
  }

  const code = findNetworkCode(error);
  if (code !== undefined) {
    let phase: NetworkPhase = 'unknown';
    if (DNS_CODES.has(code)) phase = 'dns';
    else if (CONNECT_CODES.has(code)) phase = 'connect';
    else if (TIMEOUT_CODES.has(code)) phase = code === 'UND_ERR_CONNECT_TIMEOUT' ? 'connect' : 'unknown';
    else phase = streaming ? 'stream' : bodyPhase(chain);
    const origin = TIMEOUT_CODES.has(code) ? 'timeout' : 'network';
    return { origin, networkPhase: phase, networkCode: code, message };
  }
  const drop = chain.find((link) => DROP_MESSAGES.some((pattern) => pattern.test(messageOf(link, 500))));
  if (drop !== undefined) {
    return { origin: 'network', networkPhase: streaming ? 'stream' : bodyPhase(chain), message };
  }
  const fetchFailed = chain.some(
    (link) => /^fetch failed$/i.test(messageOf(link, 100)) || constructorName(link) === 'FetchError',
  );
  if (fetchFailed) return { origin: 'network', networkPhase: 'unknown', message };
  return undefined;
}

/**
 * `fetch failed` means undici never produced a response (the drop happened before the status);
 * a bare `terminated` means the status had arrived and the body was being read.
 */
function bodyPhase(chain: unknown[]): NetworkPhase {
  const head = messageOf(chain[0], 200);
  if (/^fetch failed$/i.test(head) || /did not get a response|socket hang up/i.test(head)) {
    return 'before_response';
  }
  if (/^terminated$/i.test(head) || /premature close|truncated event/i.test(head)) return 'response_body';
  return 'unknown';
}

/**
 * Who fired a signal's abort, for an SDK abort error that only a signal can raise (its adapter
 * knows its own timeout throws something else): `abort`, the caller's own, when the caller's signal
 * given to faultline has fired; `timeout` when a timer fired it (a `TimeoutError` reason on the
 * cause chain: `AbortSignal.timeout`, a framework's timeout option, render's deadline) or when the
 * caller's signal given to faultline has not fired (another signal did); otherwise `abort`. Total.
 */
export function signalAbortOrigin(error: unknown, signal: AbortSignal | undefined): 'timeout' | 'abort' {
  if (signal !== undefined && safeGet(signal, 'aborted') === true) return 'abort';
  if (signal !== undefined) return 'timeout';
  return causeChain(error, 6).some((link) => safeGet(link, 'name') === 'TimeoutError') ? 'timeout' : 'abort';
}
