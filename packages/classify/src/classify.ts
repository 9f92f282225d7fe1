import {
  ACCOUNT_BLOCK_PHRASES,
  AUTH_PHRASES,
  BILLING_PHRASES,
  CONTENT_POLICY_PHRASES,
  CONTEXT_OVERFLOW_PHRASES,
  CREDENTIAL_REJECTED_PHRASES,
  ENDPOINT_CONFIGURATION_PHRASES,
  INVALID_REQUEST_PHRASES,
  MODEL_NOT_FOUND_PHRASES,
  OVERLOADED_PHRASES,
  PERMISSION_PHRASES,
  QUOTA_ID_LONG_WINDOW,
  QUOTA_ID_SHORT_WINDOW,
  QUOTA_PHRASES,
  RATE_LIMIT_PHRASES,
  REQUEST_TOO_LARGE_PHRASES,
  SERVER_ERROR_PHRASES,
  UNSUPPORTED_MEDIA_PHRASES,
  WAIT_IN_TEXT,
  WARMING_UP_PHRASES,
} from './phrases.ts';
import { parseDurationSeconds } from './retry-after.ts';
import {
  Classification,
  type Classification as ClassificationType,
  FailureReason,
  type FailureReason as FailureReasonType,
  type ProviderErrorMetadata,
} from './schemas.ts';
import { TAXONOMY } from './taxonomy.ts';

/** A 429 whose wait is longer than this is a spent allowance, not a rate limit. */
export const QUOTA_WAIT_THRESHOLD_SECONDS = 3600;

/**
 * A user's own rule, applied after the built-in ones. It sees the metadata and the built-in
 * result and may return another reason (the row of the taxonomy is used), a partial
 * classification merged over the built-in one, or `undefined` to keep the built-in result.
 * A rule that throws, or returns something invalid, is ignored.
 */
export type ClassificationOverride = (
  metadata: ProviderErrorMetadata,
  builtIn: ClassificationType,
) => FailureReasonType | Partial<ClassificationType> | undefined | null;

export interface ClassifyOptions {
  readonly override?: ClassificationOverride | undefined;
  /** The caller says the call is idempotent: an ambiguous (interrupted) failure becomes retryable. */
  readonly idempotent?: boolean | undefined;
}

/** The classification of one taxonomy row, with optional extras. */
export function classificationFor(
  reason: FailureReasonType,
  extras: {
    retryAfterSeconds?: number | undefined;
    userActionDetail?: string | undefined;
    idempotent?: boolean | undefined;
    callerAborted?: boolean | undefined;
  } = {},
): ClassificationType {
  const row = TAXONOMY[reason];
  const retryable = row.retryable || (row.category === 'ambiguous' && extras.idempotent === true);
  const classification: ClassificationType = {
    category: row.category,
    reason,
    retryable,
    userAction: { kind: row.userAction, detail: extras.userActionDetail ?? row.advice },
    recovery: { ...row.recovery },
    domain: row.domain,
    httpStatus: row.httpStatus,
    // An ambiguous failure the caller declared idempotent is simply retryable.
    nextStep: retryable && row.nextStep === 'retry_if_idempotent' ? 'retry' : row.nextStep,
    callerAborted: extras.callerAborted === true,
    overridden: false,
  };
  if (extras.retryAfterSeconds !== undefined) classification.retryAfterSeconds = extras.retryAfterSeconds;
  return classification;
}

const URL_PATTERN = /\b(?:https?|wss?):\/\/\S+/gi;

// Each phrase list is tested as one alternation, compiled once per list: one regex pass over the
// text instead of one per phrase (classify runs on every failure).
const COMPILED = new WeakMap<readonly RegExp[], RegExp>();

function matchesAny(text: string, phrases: readonly RegExp[]): boolean {
  let combined = COMPILED.get(phrases);
  if (combined === undefined) {
    combined = new RegExp(phrases.map((phrase) => `(?:${phrase.source})`).join('|'));
    COMPILED.set(phrases, combined);
  }
  return combined.test(text);
}

/** The wait a provider states in prose ("Please try again in 20s"), in seconds. */
export function waitFromText(text: string): number | undefined {
  const match = WAIT_IN_TEXT.exec(text);
  const amount = match?.[1];
  if (amount === undefined) return undefined;
  const spelled = /^(\d+(?:\.\d+)?)\s*(milliseconds?|seconds?|secs?|minutes?|mins?|hours?)$/i.exec(amount);
  if (spelled) {
    const value = Number(spelled[1]);
    const unit = spelled[2]!.toLowerCase();
    if (unit.startsWith('milli')) return value / 1000;
    if (unit.startsWith('min')) return value * 60;
    if (unit.startsWith('hour')) return value * 3600;
    return value;
  }
  return parseDurationSeconds(amount.toLowerCase());
}

/** What the quota ids say, when the provider gave structured quota details. */
function quotaWindow(quotaIds: readonly string[] | undefined): 'long' | 'short' | undefined {
  if (quotaIds === undefined || quotaIds.length === 0) return undefined;
  if (quotaIds.some((id) => QUOTA_ID_LONG_WINDOW.test(id))) return 'long';
  if (quotaIds.some((id) => QUOTA_ID_SHORT_WINDOW.test(id))) return 'short';
  return undefined;
}

const NETWORK_REASON_BY_PHASE = {
  dns: 'endpoint',
  connect: 'connection',
  before_response: 'interrupted',
  response_body: 'interrupted',
  stream: 'interrupted',
  unknown: 'interrupted',
} as const satisfies Record<string, FailureReasonType>;

function reasonFromStatus(status: number): FailureReasonType {
  switch (status) {
    case 401:
      return 'auth';
    case 402:
      return 'billing';
    case 403:
      return 'permission';
    case 404:
    case 405:
    case 410:
      return 'not_found';
    case 408:
      return 'timeout';
    case 424:
      // Failed Dependency: the request was fine, what the provider depends on failed (Bedrock ModelErrorException).
      return 'server_error';
    case 409:
    case 425:
      return 'overloaded';
    case 429:
      return 'rate_limit';
    case 451:
      return 'content_policy';
    case 503:
    case 529:
      return 'overloaded';
    default:
      if (status >= 500 && status <= 599) return 'server_error';
      if (status >= 400 && status <= 499) return 'invalid_request';
      return 'unknown';
  }
}

interface Decision {
  reason: FailureReasonType;
  detail?: string;
}

/** The built-in rules, in the order DESIGN.md gives them. Pure and provider-blind. */
function decide(metadata: ProviderErrorMetadata): Decision {
  const { origin } = metadata;
  if (origin === 'local') return { reason: 'local_bug' };
  if (origin === 'abort') return { reason: 'cancelled' };

  const status = metadata.statusCode;
  const prose = (metadata.message ?? '').slice(0, 8192).replace(URL_PATTERN, ' ');
  const text = [prose, metadata.providerCode ?? '', metadata.providerType ?? '', metadata.sdkErrorType ?? '']
    .join(' ')
    .toLowerCase();
  const providerSpoke = origin === 'http' || origin === 'stream_event' || origin === 'blocked_response';

  if (origin === 'blocked_response') {
    return matchesAny(text, CONTEXT_OVERFLOW_PHRASES)
      ? { reason: 'context_overflow' }
      : { reason: 'content_policy' };
  }

  // Context overflow wins over a 5xx, a 429 and a stream error.
  if (providerSpoke || origin === 'validation') {
    if (matchesAny(text, CONTEXT_OVERFLOW_PHRASES)) return { reason: 'context_overflow' };
    if ((status === 429 || status === 413) && matchesAny(text, REQUEST_TOO_LARGE_PHRASES)) {
      return { reason: 'context_overflow' };
    }
  }

  if (origin === 'network') {
    const reason = NETWORK_REASON_BY_PHASE[metadata.networkPhase ?? 'unknown'];
    return { reason };
  }
  if (origin === 'timeout') {
    const phase = metadata.networkPhase;
    return { reason: phase === 'stream' || phase === 'response_body' ? 'interrupted' : 'timeout' };
  }
  if (origin === 'malformed_response' && (status === undefined || status < 400)) {
    return { reason: 'interrupted', detail: 'The provider answered with a body that could not be read.' };
  }

  if (status !== undefined && status < 400 && !providerSpoke) return { reason: 'unknown' };
  if (status === undefined && !providerSpoke && origin !== 'validation') {
    // No status and no provider words: only a named SDK type can say more.
    if (metadata.sdkErrorType === undefined && metadata.providerType === undefined)
      return { reason: 'unknown' };
  }

  // The SDK could not even build a URL (AWS "Region is missing"): nothing was sent, fix the configuration.
  if (status === undefined && matchesAny(prose.trim().toLowerCase(), ENDPOINT_CONFIGURATION_PHRASES)) {
    return { reason: 'endpoint' };
  }
  // Account state first: a block or a spent allowance outranks rate-limit and auth wording.
  if (matchesAny(text, ACCOUNT_BLOCK_PHRASES)) {
    return { reason: 'permission', detail: 'The provider has blocked this account. Contact its support.' };
  }
  // 402 is the billing status: quota wording in its text ("billing details") must not move it.
  if (status === 402) return { reason: 'billing' };
  const window = quotaWindow(metadata.quotaIds);
  const accountStatus = status === undefined || [400, 402, 403, 429].includes(status);
  if (window === 'long') return { reason: 'quota' };
  if (window !== 'short' && accountStatus) {
    if (matchesAny(text, BILLING_PHRASES)) return { reason: 'billing' };
    if (matchesAny(text, QUOTA_PHRASES)) return { reason: 'quota' };
  }
  if (window === 'short') return { reason: 'rate_limit' };

  if (
    status === 401 ||
    matchesAny(text, CREDENTIAL_REJECTED_PHRASES) ||
    (status !== 403 && matchesAny(text, AUTH_PHRASES))
  )
    return { reason: 'auth' };
  if (matchesAny(text, MODEL_NOT_FOUND_PHRASES) && (status === undefined || status < 500)) {
    return { reason: 'model_not_found' };
  }
  if (matchesAny(text, CONTENT_POLICY_PHRASES) && (status === undefined || status < 500)) {
    return { reason: 'content_policy' };
  }
  if (status === 403 || matchesAny(text, PERMISSION_PHRASES)) return { reason: 'permission' };
  if (
    matchesAny(text, UNSUPPORTED_MEDIA_PHRASES) &&
    (status === undefined || status === 400 || status === 415 || status === 422)
  ) {
    return { reason: 'unsupported_media' };
  }
  // A model being loaded answers 429 too (Bedrock ModelNotReadyException): busy, not the account's rate.
  if (matchesAny(text, WARMING_UP_PHRASES)) {
    return { reason: 'overloaded' };
  }
  if (status === 429 || matchesAny(text, RATE_LIMIT_PHRASES)) {
    if (status !== undefined && status !== 429 && status >= 500) return { reason: reasonFromStatus(status) };
    return { reason: 'rate_limit' };
  }
  if (matchesAny(text, OVERLOADED_PHRASES)) return { reason: 'overloaded' };
  if (status !== undefined) {
    if (status >= 500 && status !== 503 && status !== 529) return { reason: 'server_error' };
    return { reason: reasonFromStatus(status) };
  }
  if (matchesAny(text, SERVER_ERROR_PHRASES)) return { reason: 'server_error' };
  if (matchesAny(text, INVALID_REQUEST_PHRASES) || origin === 'validation')
    return { reason: 'invalid_request' };
  return { reason: 'unknown' };
}

function applyOverride(
  override: ClassificationOverride,
  metadata: ProviderErrorMetadata,
  builtIn: ClassificationType,
  retryAfterSeconds: number | undefined,
  idempotent: boolean | undefined,
): ClassificationType {
  let result: ReturnType<ClassificationOverride>;
  try {
    result = override(metadata, builtIn);
  } catch {
    return builtIn;
  }
  if (result === undefined || result === null) return builtIn;
  if (typeof result === 'string') {
    const reason = FailureReason.safeParse(result);
    if (!reason.success) return builtIn;
    return { ...classificationFor(reason.data, { retryAfterSeconds, idempotent }), overridden: true };
  }
  if (typeof result !== 'object') return builtIn;
  const base =
    typeof result.reason === 'string' &&
    FailureReason.safeParse(result.reason).success &&
    result.reason !== builtIn.reason
      ? classificationFor(result.reason, { retryAfterSeconds, idempotent })
      : builtIn;
  const merged = Classification.safeParse({ ...base, ...result, overridden: true });
  return merged.success ? merged.data : builtIn;
}

/**
 * Classifies provider-blind metadata: one pure function implementing every row of the taxonomy
 * and every signal rule in DESIGN.md. Total: any input (even one that is not valid metadata)
 * gives a classification; `unknown` is never retryable.
 */
export function classify(metadata: ProviderErrorMetadata, options: ClassifyOptions = {}): ClassificationType {
  let decision: Decision;
  let retryAfterSeconds: number | undefined;
  const safe = normalise(metadata);
  try {
    retryAfterSeconds = safe.retryAfterSeconds ?? waitFromText(safe.message.slice(0, 8192));
    decision = decide(safe);
  } catch {
    decision = { reason: 'unknown' };
  }
  // A wait longer than an hour means the allowance is spent: no retry loop should hold that long.
  if (
    decision.reason === 'rate_limit' &&
    retryAfterSeconds !== undefined &&
    retryAfterSeconds > QUOTA_WAIT_THRESHOLD_SECONDS
  ) {
    decision = { reason: 'quota' };
  }
  const transientish = TAXONOMY[decision.reason].category === 'transient' || decision.reason === 'quota';
  const builtIn = classificationFor(decision.reason, {
    retryAfterSeconds: transientish ? retryAfterSeconds : undefined,
    userActionDetail: decision.detail,
    idempotent: options.idempotent,
    callerAborted: safe.origin === 'abort',
  });
  if (decision.reason === 'permission' && decision.detail !== undefined) {
    builtIn.userAction = { kind: 'contact_support', detail: decision.detail };
  }
  return options.override === undefined
    ? builtIn
    : applyOverride(options.override, safe, builtIn, retryAfterSeconds, options.idempotent);
}

/** Keeps only well-typed fields, so that classify stays total on malformed metadata. */
function normalise(metadata: unknown): ProviderErrorMetadata {
  const read = (key: string): unknown => {
    try {
      return (metadata as Record<string, unknown> | null | undefined)?.[key];
    } catch {
      return undefined;
    }
  };
  const text = (key: string): string | undefined => {
    const value = read(key);
    return typeof value === 'string' ? value.slice(0, 8192) : undefined;
  };
  const number = (key: string): number | undefined => {
    const value = read(key);
    return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
  };
  const origins = [
    'http',
    'stream_event',
    'network',
    'timeout',
    'abort',
    'malformed_response',
    'blocked_response',
    'local',
    'validation',
    'unknown',
  ];
  const phases = ['dns', 'connect', 'before_response', 'response_body', 'stream', 'unknown'];
  const origin = text('origin');
  const phase = text('networkPhase');
  const quotaIds = read('quotaIds');
  const status = number('statusCode');
  const retryAfter = number('retryAfterSeconds');
  const result: ProviderErrorMetadata = {
    provider: text('provider') ?? 'unknown',
    message: text('message') ?? '',
    origin:
      origin !== undefined && origins.includes(origin)
        ? (origin as ProviderErrorMetadata['origin'])
        : 'unknown',
  };
  if (status !== undefined && Number.isInteger(status)) result.statusCode = status;
  if (retryAfter !== undefined && retryAfter >= 0) result.retryAfterSeconds = retryAfter;
  for (const key of [
    'sdkErrorType',
    'requestId',
    'providerCode',
    'providerType',
    'providerParam',
    'networkCode',
    'blockReason',
  ] as const) {
    const value = text(key);
    if (value !== undefined) result[key] = value;
  }
  if (phase !== undefined && phases.includes(phase))
    result.networkPhase = phase as ProviderErrorMetadata['networkPhase'];
  if (Array.isArray(quotaIds))
    result.quotaIds = quotaIds.filter((id): id is string => typeof id === 'string').slice(0, 50);
  return result;
}
