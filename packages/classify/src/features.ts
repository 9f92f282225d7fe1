import type { ProviderErrorMetadata } from './schemas.ts';
import { MAX_EVIDENCE_LENGTH } from './values.ts';
import {
  ACCOUNT_BLOCK,
  ALLOWANCE,
  AMBIGUOUS_OVERFLOW,
  AUTH,
  AVAILABILITY,
  CAPACITY,
  CONTENT_POLICY,
  CREDENTIAL_REJECTED,
  INVALID_REQUEST,
  LIMIT_CONTEXT,
  LIMIT_NUMBERS,
  LONG_WINDOW,
  NO_ROUTE,
  OVERFLOW,
  PAYMENT,
  PERMISSION,
  QUOTA_ID_LONG,
  QUOTA_ID_SHORT,
  SERVER_FAULT,
  SHORT_WINDOW,
  THROTTLE,
  TOO_LARGE_FOR_BUDGET,
  UNSUPPORTED_MEDIA,
  type Vocabulary,
  WAIT_IN_WORDS,
  WARMING_UP,
} from './vocabulary.ts';

/** The provider-blind features classify reads; each is a piece of evidence, or absent. */
export const FEATURE_NAMES = [
  'quotaIdWindow',
  'overflow',
  'ambiguousOverflow',
  'tooLargeForBudget',
  'limitNumbers',
  'limitContext',
  'shortWindow',
  'longWindow',
  'waitInWords',
  'payment',
  'allowance',
  'accountBlock',
  'credentialRejected',
  'auth',
  'permission',
  'availability',
  'noRoute',
  'contentPolicy',
  'unsupportedMedia',
  'warmingUp',
  'throttle',
  'capacity',
  'serverFault',
  'invalidRequest',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

const VOCABULARY_OF: Readonly<Record<Exclude<FeatureName, 'quotaIdWindow'>, Vocabulary>> = {
  overflow: OVERFLOW,
  ambiguousOverflow: AMBIGUOUS_OVERFLOW,
  tooLargeForBudget: TOO_LARGE_FOR_BUDGET,
  limitNumbers: LIMIT_NUMBERS,
  limitContext: LIMIT_CONTEXT,
  shortWindow: SHORT_WINDOW,
  longWindow: LONG_WINDOW,
  waitInWords: WAIT_IN_WORDS,
  payment: PAYMENT,
  allowance: ALLOWANCE,
  accountBlock: ACCOUNT_BLOCK,
  credentialRejected: CREDENTIAL_REJECTED,
  auth: AUTH,
  permission: PERMISSION,
  availability: AVAILABILITY,
  noRoute: NO_ROUTE,
  contentPolicy: CONTENT_POLICY,
  unsupportedMedia: UNSUPPORTED_MEDIA,
  warmingUp: WARMING_UP,
  throttle: THROTTLE,
  capacity: CAPACITY,
  serverFault: SERVER_FAULT,
  invalidRequest: INVALID_REQUEST,
};

/** The window a structured quota id names (only the window: the tier never decides). */
export interface QuotaIdWindow {
  readonly window: 'short' | 'long';
  readonly quotaId: string;
}

/** The longest message text read; a provider's words past this never change the decision. */
export const MAX_READ_LENGTH = 8192;

// Built on first use, not at import.
let urlPattern: RegExp | undefined;
let limitNumberPattern: RegExp | undefined;

/**
 * Reads features lazily: each is computed the first time a rule asks for it, and remembered.
 * Rules ask in table order, so a structured field that decides (a quota id, an origin, an SDK
 * condition) means the vocabularies after it are never run. `read` lists what was read, in order,
 * for `explain`.
 */
export class Features {
  private textCache: string | undefined;
  // Created on the first feature read: a structured field that decides reads none.
  private cache: Map<FeatureName, unknown> | undefined;
  private readonly order: FeatureName[] = [];

  constructor(private readonly metadata: ProviderErrorMetadata) {}

  /** The provider's words: message (URLs removed), code, type and SDK error type, lower-cased. */
  get text(): string {
    if (this.textCache === undefined) {
      const { metadata } = this;
      urlPattern ??= /\b(?:https?|wss?):\/\/\S+/gi;
      const prose = metadata.message.slice(0, MAX_READ_LENGTH).replace(urlPattern, ' ');
      this.textCache =
        `${prose} ${metadata.providerCode ?? ''} ${metadata.providerType ?? ''} ${metadata.sdkErrorType ?? ''}`.toLowerCase();
    }
    return this.textCache;
  }

  /** The piece of the provider's words that shows a feature, or `undefined`. */
  get(name: Exclude<FeatureName, 'quotaIdWindow'>): string | undefined {
    if (this.cache?.has(name) === true) return this.cache.get(name) as string | undefined;
    const found = VOCABULARY_OF[name].find(this.text);
    this.remember(name, found);
    return found;
  }

  /** The window of the structured quota ids: any long window outranks a short one. */
  quotaIdWindow(): QuotaIdWindow | undefined {
    if (this.cache?.has('quotaIdWindow') === true)
      return this.cache.get('quotaIdWindow') as QuotaIdWindow | undefined;
    let result: QuotaIdWindow | undefined;
    const ids = this.metadata.quotaIds ?? [];
    for (const id of ids) {
      if (QUOTA_ID_LONG.find(id.toLowerCase()) !== undefined) {
        result = { window: 'long', quotaId: id };
        break;
      }
    }
    if (result === undefined) {
      for (const id of ids) {
        if (QUOTA_ID_SHORT.find(id.toLowerCase()) !== undefined) {
          result = { window: 'short', quotaId: id };
          break;
        }
      }
    }
    this.remember('quotaIdWindow', result);
    return result;
  }

  /** The wait the provider states in words, in seconds, with the words. */
  waitInWords(): { seconds: number; words: string } | undefined {
    const words = this.get('waitInWords');
    if (words === undefined) return undefined;
    const seconds = secondsOf(words);
    return seconds === undefined ? undefined : { seconds, words };
  }

  /** "Limit 7000, ... Requested ~12903": the words, when the request alone is larger than the limit. */
  requestOverLimit(): string | undefined {
    const words = this.get('limitNumbers');
    if (words === undefined) return undefined;
    // The first two numbers, read with one exec loop (matchAll's iterator and array were a fifth
    // of classify's time on a rate-limit message).
    limitNumberPattern ??= /(?:limit|requested):? ~?([\d,.]+)/g;
    limitNumberPattern.lastIndex = 0;
    const first = limitNumberPattern.exec(words);
    const second = first === null ? null : limitNumberPattern.exec(words);
    limitNumberPattern.lastIndex = 0;
    if (first === null || second === null) return undefined;
    const limit = Number((first[1] ?? '').replace(/,/g, ''));
    const requested = Number((second[1] ?? '').replace(/,/g, ''));
    return requested > limit && limit >= 0 ? words : undefined;
  }

  /** Every feature read so far, with its evidence (for `explain`). */
  summary(): Partial<Record<FeatureName, string | null>> {
    const summary: Partial<Record<FeatureName, string | null>> = {};
    for (const name of this.order) {
      const value = this.cache?.get(name);
      if (value === undefined) summary[name] = null;
      else if (typeof value === 'string') summary[name] = evidenceOf(value);
      else
        summary[name] = evidenceOf(`${(value as QuotaIdWindow).window}: ${(value as QuotaIdWindow).quotaId}`);
    }
    return summary;
  }

  private remember(name: FeatureName, value: unknown): void {
    this.cache ??= new Map();
    this.cache.set(name, value);
    this.order.push(name);
  }
}

const UNIT_SECONDS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^(?:milliseconds?|ms)$/, 0.001],
  [/^(?:hours?|hrs?|h)$/, 3600],
  [/^(?:minutes?|mins?|m)$/, 60],
  [/^(?:seconds?|secs?|s)$/, 1],
];

/** "try again in 2h 14m" → 8040; "retry in 26.028202s" → 26.028202; "in 450ms" → 0.45. */
export function secondsOf(words: string): number | undefined {
  let total = 0;
  let found = false;
  for (const match of words.toLowerCase().matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)) {
    const unit = match[2] ?? '';
    const row = UNIT_SECONDS.find(([pattern]) => pattern.test(unit));
    if (row === undefined) continue;
    total += Number(match[1]) * row[1];
    found = true;
  }
  return found && Number.isFinite(total) ? total : undefined;
}

// Built on first use. Secrets and account identifiers a piece of provider text could carry; render
// scrubs every field again with its full list before anything leaves the process, this is the
// first line (classify does not depend on render, which sits above it).
let secretPatterns: ReadonlyArray<readonly [RegExp, string]> | undefined;
// One pass that says whether any pattern below could match: most evidence ("per minute", "status
// 429", a quota id) has nothing to scrub, and then costs one test instead of nine replaces.
let secretHint: RegExp | undefined;

/**
 * A bounded, scrubbed piece of evidence: at most `MAX_EVIDENCE_LENGTH` characters, whitespace
 * collapsed, keys, tokens and account or organisation identifiers replaced.
 */
export function evidenceOf(text: string): string {
  secretPatterns ??= [
    [/\b(bearer|basic)\s+\S+/gi, '$1 [redacted]'],
    [
      /\b((?:x-)?(?:api[_-]?key|apikey|access[_-]?token|token|secret|password|authorization|key)\s*[:=]\s*['"]?)[^\s'",;}]+/gi,
      '$1[redacted]',
    ],
    [/(?<![a-z0-9])(?:sk|gsk|xai|hf|pk|rk)[-_][a-z0-9_-]{6,}/gi, '[redacted]'],
    [/(?<![a-z0-9])aiza[0-9a-z_-]{10,}/gi, '[redacted]'],
    [/(?<![a-z0-9])(?:akia|asia)[0-9a-z]{12,}/gi, '[redacted]'],
    [/(?<![a-z0-9])(?:org|proj|user|acct|ws)[-_][a-z0-9]{4,}/gi, '[id]'],
    [/\b[\w.+-]+@[\w-]+\.[\w.-]+/g, '[email]'],
    [/\b(?:projects?|accounts?|organizations?|consumer)(\/|\s+|:)['"]?[\w:-]*\d[\w:-]*/gi, '[id]'],
    // Any long token with a digit in it: keys, hashes, account numbers (quota ids have none).
    [/(?<!\w)(?=\w*\d)\w{20,}/g, '[redacted]'],
  ];
  let result = text
    .slice(0, 4 * MAX_EVIDENCE_LENGTH)
    .replace(/\s+/g, ' ')
    .trim();
  secretHint ??=
    /bearer|basic|key|token|secret|password|authori|sk[-_]|gsk|xai|hf_|pk[-_]|rk[-_]|aiza|akia|asia|org|proj|user|acct|ws[-_]|@|consumer|account|\w{20}/i;
  if (!secretHint.test(result)) {
    return result.length > MAX_EVIDENCE_LENGTH ? `${result.slice(0, MAX_EVIDENCE_LENGTH - 1)}…` : result;
  }
  for (const [pattern, replacement] of secretPatterns) result = result.replace(pattern, replacement);
  return result.length > MAX_EVIDENCE_LENGTH ? `${result.slice(0, MAX_EVIDENCE_LENGTH - 1)}…` : result;
}
