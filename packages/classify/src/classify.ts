import * as v from 'valibot';
import { reportCrash } from './extractor.ts';
import { evidenceOf, type FeatureName, Features, MAX_READ_LENGTH, secondsOf } from './features.ts';
import { checkOptionKeys } from './invalid-option.ts';
import { safeGet } from './read.ts';
import { RULES, type Rule, ruleInputOf, type Verdict } from './rules.ts';
import {
  Classification,
  type Classification as ClassificationType,
  type DecidedBy,
  FailureReason,
  type FailureReason as FailureReasonType,
  type ProviderErrorMetadata,
  type RuleId,
} from './schemas.ts';
import { TAXONOMY } from './taxonomy.ts';
import { FAILURE_ORIGINS, NETWORK_PHASES, SDK_CONDITIONS } from './values.ts';
import { WAIT_IN_WORDS } from './vocabulary.ts';

/** A 429 whose wait is longer than this is a spent allowance, not a rate limit. */
export const QUOTA_WAIT_THRESHOLD_SECONDS = 3600;

/**
 * A user's own rule, applied after the built-in ones. It sees the metadata and the built-in
 * result (whose `decidedBy.rule` names the rule that decided) and may return another reason (the
 * row of the taxonomy is used), a partial classification merged over the built-in one, or
 * `undefined` to keep the built-in result. A rule that throws, or returns something invalid, is
 * ignored.
 */
export type ClassificationOverrideFunction = (
  metadata: ProviderErrorMetadata,
  builtIn: ClassificationType,
) => FailureReasonType | Partial<ClassificationType> | undefined | null;

/**
 * Overrides keyed by the id of the rule that decided (`decidedBy.rule`): when that rule decides,
 * its entry replaces the verdict with a reason, a partial classification, or a function's answer.
 * E.g. `{ quota_id_long_window: 'rate_limit' }`.
 */
export type RuleOverrides = {
  readonly [Rule in RuleId]?:
    | FailureReasonType
    | Partial<ClassificationType>
    | ClassificationOverrideFunction;
};

/** A user's override: one function for every failure, or entries keyed by rule id. */
export type ClassificationOverride = ClassificationOverrideFunction | RuleOverrides;

export interface ClassifyOptions {
  readonly override?: ClassificationOverride | undefined;
  /** The caller says the call is idempotent: an ambiguous (interrupted) failure becomes retryable. */
  readonly idempotent?: boolean | undefined;
}

/** The keys of `ClassifyOptions`: any other key is a TypeError at the call (see `checkOptionKeys`). */
export const CLASSIFY_OPTION_KEYS = { override: true, idempotent: true } as const satisfies Record<
  keyof ClassifyOptions,
  true
>;

/** The classification of one taxonomy row, with optional extras. */
export function classificationFor(
  reason: FailureReasonType,
  extras: {
    retryAfterSeconds?: number | undefined;
    userActionDetail?: string | undefined;
    idempotent?: boolean | undefined;
    callerAborted?: boolean | undefined;
    /** The rule that decided; `assigned` when the reason was given directly. */
    decidedBy?: DecidedBy | undefined;
    /** The user action is `contact_support` (an account block), whatever the row says. */
    contactSupport?: boolean | undefined;
  } = {},
): ClassificationType {
  const row = TAXONOMY[reason];
  const retryable = row.retryable || (row.category === 'ambiguous' && extras.idempotent === true);
  const classification: ClassificationType = {
    category: row.category,
    reason,
    retryable,
    userAction:
      extras.contactSupport === true
        ? { kind: 'contact_support', detail: extras.userActionDetail }
        : { kind: row.userAction, detail: extras.userActionDetail ?? row.advice },
    recovery: { ...row.recovery },
    domain: row.domain,
    httpStatus: row.httpStatus,
    // An ambiguous failure the caller declared idempotent is simply retryable.
    nextStep: retryable && row.nextStep === 'retry_if_idempotent' ? 'retry' : row.nextStep,
    callerAborted: extras.callerAborted === true,
    overridden: false,
    decidedBy: extras.decidedBy ?? { rule: 'assigned' },
  };
  if (extras.retryAfterSeconds !== undefined) classification.retryAfterSeconds = extras.retryAfterSeconds;
  return classification;
}

/** The wait a provider states in words ("Please try again in 20s", "in 2h 14m"), in seconds. */
export function waitFromText(text: string): number | undefined {
  const words = WAIT_IN_WORDS.find(text.slice(0, MAX_READ_LENGTH).toLowerCase());
  return words === undefined ? undefined : secondsOf(words);
}

/** The override that applies to this classification: the function, or the entry of its rule. */
function overrideFor(
  override: ClassificationOverride,
  rule: RuleId,
): ClassificationOverrideFunction | FailureReasonType | Partial<ClassificationType> | undefined {
  if (typeof override === 'function') return override;
  if (override === null || typeof override !== 'object') return undefined;
  try {
    return Object.hasOwn(override, rule) ? (override as RuleOverrides)[rule] : undefined;
  } catch {
    return undefined;
  }
}

function applyOverride(
  override: ClassificationOverride,
  metadata: ProviderErrorMetadata,
  builtIn: ClassificationType,
  retryAfterSeconds: number | undefined,
  idempotent: boolean | undefined,
): ClassificationType {
  try {
    const entry = overrideFor(override, builtIn.decidedBy.rule);
    const result = typeof entry === 'function' ? entry(metadata, builtIn) : entry;
    return overridden(result, builtIn, retryAfterSeconds, idempotent) ?? builtIn;
  } catch {
    // The override threw, or its answer did while it was read: the built-in result stands.
    return builtIn;
  }
}

/** The classification an override's answer gives, or `undefined` when the answer is not valid. */
function overridden(
  result: ReturnType<ClassificationOverrideFunction>,
  builtIn: ClassificationType,
  retryAfterSeconds: number | undefined,
  idempotent: boolean | undefined,
): ClassificationType | undefined {
  if (result === undefined || result === null) return undefined;
  // The rule that decided stays on record: the override changed its verdict, not its evidence.
  const decidedBy = builtIn.decidedBy;
  if (typeof result === 'string') {
    if (!v.is(FailureReason, result)) return undefined;
    return {
      ...classificationFor(result, { retryAfterSeconds, idempotent, decidedBy }),
      overridden: true,
    };
  }
  if (typeof result !== 'object') return undefined;
  const base =
    typeof result.reason === 'string' &&
    v.is(FailureReason, result.reason) &&
    result.reason !== builtIn.reason
      ? classificationFor(result.reason, { retryAfterSeconds, idempotent, decidedBy })
      : builtIn;
  const merged = v.safeParse(Classification, { ...base, ...result, overridden: true });
  return merged.success ? merged.output : undefined;
}

/** What `explainClassification` returns: the classification, and what the rule table read. */
export interface Explanation {
  readonly classification: ClassificationType;
  /** The features the rules read, in the order they read them, with their evidence (or null). */
  readonly features: Partial<Record<FeatureName, string | null>>;
}

/**
 * Classifies like `classify`, and also returns the features the rule table read on the way to
 * its decision (each with a bounded, scrubbed piece of evidence, or null when absent).
 */
export function explainClassification(
  metadata: ProviderErrorMetadata,
  options?: ClassifyOptions,
): Explanation {
  checkOptionKeys('explainClassification', options, CLASSIFY_OPTION_KEYS);
  const { classification, features } = run(metadata, options ?? {});
  return { classification, features: features.summary() };
}

/**
 * Classifies provider-blind metadata: one pure function implementing every row of the taxonomy
 * and every signal rule in docs/contributing/design.md, through one ordered rule table (rules.ts).
 * Total: any input (even one that is not valid metadata) gives a classification; `unknown` is
 * never retryable. `decidedBy` names the rule that decided and the evidence it matched. An
 * unknown option key is a programming error, not data: a TypeError at the call.
 */
export function classify(metadata: ProviderErrorMetadata, options?: ClassifyOptions): ClassificationType {
  checkOptionKeys('classify', options, CLASSIFY_OPTION_KEYS);
  return run(metadata, options ?? {}).classification;
}

/**
 * What a rule that threw answers: faultline's own bug, named after the rule. The crash itself goes
 * to the `onExtractorCrash` listeners, as an extractor's does.
 */
function crashed(rule: Rule['id']): Verdict {
  return {
    reason: 'local_bug',
    evidence: `rule ${rule} threw`,
    detail: `faultline's classify rule ${rule} failed while reading this error (a bug in faultline: please report it).`,
  };
}

/** The rule table runs here: the first rule with a verdict decides. Pure and provider-blind. */
function run(
  metadata: ProviderErrorMetadata,
  options: ClassifyOptions,
): { classification: ClassificationType; features: Features } {
  const safe = normalise(metadata);
  const { origin, provider } = safe;
  const features = new Features(safe);
  const input = ruleInputOf(safe, features);
  // The last rule (`unrecognised`) always answers.
  let rule: RuleId = 'unrecognised';
  let verdict: Verdict = { reason: 'unknown' };
  for (const candidate of RULES) {
    let answer: Verdict | undefined;
    try {
      answer = candidate.decide(input);
    } catch (thrown) {
      reportCrash({ provider, thrown, rule: candidate.id });
      answer = crashed(candidate.id);
    }
    if (answer !== undefined) {
      rule = candidate.id;
      verdict = answer;
      break;
    }
  }
  const transientish = TAXONOMY[verdict.reason].category === 'transient' || verdict.reason === 'quota';
  // The wait: the provider's structured one, else its words (only a provider's own words state a
  // wait: a transport error's message never does), read only when it can matter.
  let retryAfterSeconds = safe.retryAfterSeconds;
  const providerWords = origin === 'http' || origin === 'stream_event';
  if (retryAfterSeconds === undefined && providerWords && (transientish || options.override !== undefined)) {
    try {
      retryAfterSeconds = features.waitInWords();
    } catch (thrown) {
      reportCrash({ provider, thrown, rule: 'long_wait' });
    }
  }
  // A wait longer than an hour means the allowance is spent: no retry loop should hold that long.
  if (
    verdict.reason === 'rate_limit' &&
    retryAfterSeconds !== undefined &&
    retryAfterSeconds > QUOTA_WAIT_THRESHOLD_SECONDS
  ) {
    verdict = { reason: 'quota', evidence: `wait ${Math.round(retryAfterSeconds)}s` };
    rule = 'long_wait';
  }
  const decidedBy: DecidedBy = { rule };
  if (verdict.evidence !== undefined && verdict.evidence !== '') {
    const evidence = evidenceOf(verdict.evidence);
    if (evidence !== '') decidedBy.evidence = evidence;
  }
  const builtIn = classificationFor(verdict.reason, {
    retryAfterSeconds: transientish ? retryAfterSeconds : undefined,
    userActionDetail: verdict.detail,
    idempotent: options.idempotent,
    callerAborted: origin === 'abort',
    decidedBy,
    contactSupport: verdict.contactSupport,
  });
  const classification =
    options.override === undefined
      ? builtIn
      : applyOverride(options.override, safe, builtIn, retryAfterSeconds, options.idempotent);
  return { classification, features };
}

/** A string field, cut to the text cap: a provider's words past it never change the decision. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value.slice(0, MAX_READ_LENGTH) : undefined;
}

/** One of a closed set of strings, or `undefined`. */
function oneOf<const T extends string>(values: readonly T[], value: unknown): T | undefined {
  return (values as readonly unknown[]).includes(value) ? (value as T) : undefined;
}

/** At most 50 quota ids, strings only, each at most 200 characters; `undefined` when not an array (or a proxy throws). */
function quotaIdsOf(value: unknown): string[] | undefined {
  try {
    // Inside the try: `Array.isArray` itself throws on a revoked proxy.
    if (!Array.isArray(value)) return undefined;
    return value
      .slice(0, 50)
      .filter((id): id is string => typeof id === 'string')
      .map((id) => id.slice(0, 200));
  } catch {
    return undefined;
  }
}

/**
 * The metadata as the rules read it, so that classify stays total on malformed metadata: a plain
 * object of the well-typed fields only, each read once without throwing (a throwing getter or a
 * Proxy trap gives an absent field). The override sees this object.
 */
function normalise(metadata: unknown): ProviderErrorMetadata {
  const field = (key: keyof ProviderErrorMetadata): unknown => safeGet(metadata, key);
  const statusCode = field('statusCode');
  const retryAfterSeconds = field('retryAfterSeconds');
  const safe: ProviderErrorMetadata = {
    provider: text(field('provider')) ?? 'unknown',
    message: text(field('message')) ?? '',
    origin: oneOf(FAILURE_ORIGINS, field('origin')) ?? 'unknown',
  };
  if (typeof statusCode === 'number' && Number.isInteger(statusCode)) safe.statusCode = statusCode;
  if (typeof retryAfterSeconds === 'number' && Number.isFinite(retryAfterSeconds) && retryAfterSeconds >= 0)
    safe.retryAfterSeconds = retryAfterSeconds;
  const optional = {
    sdkErrorType: text(field('sdkErrorType')),
    requestId: text(field('requestId')),
    providerCode: text(field('providerCode')),
    providerType: text(field('providerType')),
    providerParam: text(field('providerParam')),
    networkCode: text(field('networkCode')),
    blockReason: text(field('blockReason')),
    networkPhase: oneOf(NETWORK_PHASES, text(field('networkPhase'))),
    quotaIds: quotaIdsOf(field('quotaIds')),
    sdkCondition: oneOf(SDK_CONDITIONS, field('sdkCondition')),
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) Object.assign(safe, { [key]: value });
  }
  return safe;
}
