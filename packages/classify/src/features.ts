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
  OUTPUT_CAP,
  OVERFLOW,
  PAYMENT,
  PAYMENT_REMEDY,
  PERMISSION,
  QUOTA_ID_LONG,
  QUOTA_ID_SHORT,
  REQUEST_SHAPE,
  SERVER_FAULT,
  SHORT_WINDOW,
  THROTTLE,
  TOO_LARGE_FOR_BUDGET,
  UNSUPPORTED_MEDIA,
  UPSTREAM_FAILED,
  type Vocabulary,
  WAIT_IN_WORDS,
  WARMING_UP,
} from './vocabulary.ts';

/** The provider-blind features classify reads; each is a piece of evidence, or absent. */
export const FEATURE_NAMES = [
  'quotaIdWindow',
  'overflow',
  'ambiguousOverflow',
  'outputCap',
  'tooLargeForBudget',
  'limitNumbers',
  'limitContext',
  'shortWindow',
  'longWindow',
  'waitInWords',
  'payment',
  'paymentRemedy',
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
  'requestShape',
  'upstreamFailed',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

/** A feature read from the provider's words: every feature but the structured quota ids' window. */
export type TextFeature = Exclude<FeatureName, 'quotaIdWindow'>;

const VOCABULARY_OF: Readonly<Record<TextFeature, Vocabulary>> = {
  overflow: OVERFLOW,
  ambiguousOverflow: AMBIGUOUS_OVERFLOW,
  outputCap: OUTPUT_CAP,
  tooLargeForBudget: TOO_LARGE_FOR_BUDGET,
  limitNumbers: LIMIT_NUMBERS,
  limitContext: LIMIT_CONTEXT,
  shortWindow: SHORT_WINDOW,
  longWindow: LONG_WINDOW,
  waitInWords: WAIT_IN_WORDS,
  payment: PAYMENT,
  paymentRemedy: PAYMENT_REMEDY,
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
  requestShape: REQUEST_SHAPE,
  upstreamFailed: UPSTREAM_FAILED,
};

/** The window a structured quota id names (only the window: the tier never decides). */
export interface QuotaIdWindow {
  readonly window: 'short' | 'long';
  readonly quotaId: string;
}

/** The longest message text read; a provider's words past this never change the decision. */
export const MAX_READ_LENGTH = 8192;

/**
 * Reads features lazily: each is computed the first time a rule asks for it, and remembered.
 * Rules ask in table order, so a structured field that decides (a quota id, an origin, an SDK
 * condition) means the vocabularies after it are never run. What was read is kept in the order it
 * was read, for `explainClassification`.
 */
export class Features {
  private textCache: string | undefined;
  private readonly read = new Map<FeatureName, unknown>();

  constructor(private readonly metadata: ProviderErrorMetadata) {}

  /** The provider's words: message (URLs removed), code, type and SDK error type, lower-cased. */
  get text(): string {
    if (this.textCache === undefined) {
      const { metadata } = this;
      const prose = metadata.message.slice(0, MAX_READ_LENGTH);
      this.textCache =
        `${prose.includes('://') ? prose.replace(URL, ' ') : prose} ${metadata.providerCode ?? ''} ${metadata.providerType ?? ''} ${metadata.sdkErrorType ?? ''}`.toLowerCase();
    }
    return this.textCache;
  }

  /** The piece of the provider's words that shows a text feature, or `undefined`. */
  get(name: TextFeature): string | undefined {
    if (!this.read.has(name)) this.read.set(name, VOCABULARY_OF[name].find(this.text));
    return this.read.get(name) as string | undefined;
  }

  /** The window of the structured quota ids: any long window outranks a short one. */
  quotaIdWindow(): QuotaIdWindow | undefined {
    if (!this.read.has('quotaIdWindow')) {
      const ids = this.metadata.quotaIds ?? [];
      const long = ids.find((id) => QUOTA_ID_LONG.find(id.toLowerCase()) !== undefined);
      const short = ids.find((id) => QUOTA_ID_SHORT.find(id.toLowerCase()) !== undefined);
      this.read.set(
        'quotaIdWindow',
        long !== undefined
          ? { window: 'long', quotaId: long }
          : short !== undefined
            ? { window: 'short', quotaId: short }
            : undefined,
      );
    }
    return this.read.get('quotaIdWindow') as QuotaIdWindow | undefined;
  }

  /** The wait the provider states in words, in seconds. */
  waitInWords(): number | undefined {
    const words = this.get('waitInWords');
    return words === undefined ? undefined : secondsOf(words);
  }

  /** "Limit 7000, ... Requested ~12903": the words, when the request alone is larger than the limit. */
  requestOverLimit(): string | undefined {
    const words = this.get('limitNumbers');
    if (words === undefined) return undefined;
    const [limit, requested] = Array.from(words.matchAll(LIMIT_AMOUNT), (match) =>
      Number((match[1] as string).replaceAll(',', '')),
    );
    if (limit === undefined || requested === undefined) return undefined;
    return requested > limit && limit >= 0 ? words : undefined;
  }

  /** Every feature read so far, in the order it was read, with its evidence (for `explain`). */
  summary(): Partial<Record<FeatureName, string | null>> {
    const summary: Partial<Record<FeatureName, string | null>> = {};
    for (const [name, value] of this.read) {
      if (value === undefined) summary[name] = null;
      else if (typeof value === 'string') summary[name] = evidenceOf(value);
      else {
        const { window, quotaId } = value as QuotaIdWindow;
        summary[name] = evidenceOf(`${window}: ${quotaId}`);
      }
    }
    return summary;
  }
}

/** A URL in a provider's message: its path words ("billing", "quota") are not the provider's prose. */
const URL = /(?<!\w)(?:https?|wss?):\/\/\S+/gi;

/** The numbers of a limit message, in order: "limit: ~7,000", "requested 12903". */
const LIMIT_AMOUNT = /(?:limit|requested):? ~?([\d,.]+)/g;

/**
 * An amount and the word after it ("2h", "13.4 s", "450ms"), or an amount alone: a number with no
 * word after it is passed over whole ("1.2.3ms" is 3 ms, not 2.3).
 */
const AMOUNT_AND_UNIT = /(\d+(?:\.\d+)?)\s*([a-z]*)/g;

/** Seconds per unit, for every unit word the WAIT_IN_WORDS vocabulary accepts. */
const UNIT_SECONDS: ReadonlyMap<string, number> = new Map([
  ['millisecond', 0.001],
  ['milliseconds', 0.001],
  ['ms', 0.001],
  ['hour', 3600],
  ['hours', 3600],
  ['hr', 3600],
  ['hrs', 3600],
  ['h', 3600],
  ['minute', 60],
  ['minutes', 60],
  ['min', 60],
  ['mins', 60],
  ['m', 60],
  ['second', 1],
  ['seconds', 1],
  ['sec', 1],
  ['secs', 1],
  ['s', 1],
]);

/**
 * The seconds a wait in lower-case words adds up to: "try again in 2h 14m" → 8040, "retry in
 * 26.028202s" → 26.028202, "in 450ms" → 0.45. A word that is not a unit adds nothing.
 */
export function secondsOf(lower: string): number | undefined {
  let total = 0;
  let found = false;
  for (const [, amount, unit] of lower.matchAll(AMOUNT_AND_UNIT)) {
    const perUnit = UNIT_SECONDS.get(unit as string);
    if (perUnit === undefined) continue;
    total += Number(amount) * perUnit;
    found = true;
  }
  return found && Number.isFinite(total) ? total : undefined;
}

/**
 * Secrets and account identifiers a piece of provider text could carry. render scrubs every field
 * again with its full list before anything leaves the process; this is the first line (classify
 * does not depend on render, which sits above it).
 */
export const SECRETS: ReadonlyArray<readonly [RegExp, string]> = [
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

/**
 * What every pattern of SECRETS needs somewhere in the text (keep the two lists in step): most
 * evidence ("per minute", "status 429", a quota id) has none of it, and then the nine replaces
 * are not run.
 */
export const MAY_HOLD_SECRET =
  /bearer|basic|key|token|secret|password|authori|sk[-_]|gsk|xai|hf[-_]|pk[-_]|rk[-_]|aiza|akia|asia|org|proj|user|acct|ws[-_]|@|consumer|account|\w{20}/i;

/**
 * A bounded, scrubbed piece of evidence: at most `MAX_EVIDENCE_LENGTH` characters, whitespace
 * collapsed, keys, tokens and account or organisation identifiers replaced.
 */
export function evidenceOf(text: string): string {
  let result = text
    .slice(0, 4 * MAX_EVIDENCE_LENGTH)
    .replace(/\s+/g, ' ')
    .trim();
  if (MAY_HOLD_SECRET.test(result))
    for (const [pattern, replacement] of SECRETS) result = result.replace(pattern, replacement);
  return result.length > MAX_EVIDENCE_LENGTH ? `${result.slice(0, MAX_EVIDENCE_LENGTH - 1)}…` : result;
}
