import { Classification, FailureOrigin, FailureReason, NetworkPhase, SdkCondition } from './checks.ts';
import { evidenceOf, type FeatureName, Features, secondsOf } from './features.ts';
import { RULES, type RuleInput, type Verdict } from './rules.ts';
import type {
  Classification as ClassificationType,
  DecidedBy,
  FailureReason as FailureReasonType,
  ProviderErrorMetadata,
  RuleId,
} from './schemas.ts';
import { TAXONOMY } from './taxonomy.ts';
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
    decidedBy: extras.decidedBy ?? { rule: 'assigned' },
  };
  if (extras.retryAfterSeconds !== undefined) classification.retryAfterSeconds = extras.retryAfterSeconds;
  return classification;
}

/** The wait a provider states in words ("Please try again in 20s", "in 2h 14m"), in seconds. */
export function waitFromText(text: string): number | undefined {
  const words = WAIT_IN_WORDS.find(text.slice(0, 8192).toLowerCase());
  return words === undefined ? undefined : secondsOf(words);
}

/** The decision of the rule table: the verdict and the rule that gave it. */
interface Decision {
  verdict: Verdict;
  rule: Exclude<RuleId, 'assigned'>;
}

/**
 * Runs the rule table over `features` (of `metadata`): the first rule with a verdict decides, and
 * is written into `decision`. Pure and provider-blind.
 */
function decide(metadata: ProviderErrorMetadata, features: Features, decision: Decision): void {
  const { origin } = metadata;
  const status = metadata.statusCode;
  const accountStatus =
    status === undefined || status === 400 || status === 402 || status === 403 || status === 429;
  const input: RuleInput = {
    metadata,
    features,
    status,
    providerSpoke: origin === 'http' || origin === 'stream_event' || origin === 'blocked_response',
    accountStatus,
  };
  for (const rule of RULES) {
    const verdict = rule.decide(input);
    if (verdict !== undefined) {
      decision.verdict = verdict;
      decision.rule = rule.id;
      return;
    }
  }
  // Unreachable: the last rule always answers.
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
  let result: ReturnType<ClassificationOverrideFunction>;
  try {
    const entry = overrideFor(override, builtIn.decidedBy.rule);
    result = typeof entry === 'function' ? entry(metadata, builtIn) : entry;
  } catch {
    return builtIn;
  }
  if (result === undefined || result === null) return builtIn;
  // The rule that decided stays on record: the override changed its verdict, not its evidence.
  const decidedBy = builtIn.decidedBy;
  if (typeof result === 'string') {
    const reason = FailureReason.safeParse(result);
    if (!reason.success) return builtIn;
    return {
      ...classificationFor(reason.data, { retryAfterSeconds, idempotent, decidedBy }),
      overridden: true,
    };
  }
  if (typeof result !== 'object') return builtIn;
  const base =
    typeof result.reason === 'string' &&
    FailureReason.safeParse(result.reason).success &&
    result.reason !== builtIn.reason
      ? classificationFor(result.reason, { retryAfterSeconds, idempotent, decidedBy })
      : builtIn;
  const merged = Classification.safeParse({ ...base, ...result, overridden: true });
  return merged.success ? merged.data : builtIn;
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
  options: ClassifyOptions = {},
): Explanation {
  const read: { features?: Features } = {};
  const classification = run(metadata, options, read);
  let features: Explanation['features'] = {};
  try {
    features = read.features?.summary() ?? {};
  } catch {
    features = {};
  }
  return { classification, features };
}

/**
 * Classifies provider-blind metadata: one pure function implementing every row of the taxonomy
 * and every signal rule in docs/contributing/design.md, through one ordered rule table (rules.ts). Total: any input
 * (even one that is not valid metadata) gives a classification; `unknown` is never retryable.
 * `decidedBy` names the rule that decided and the evidence it matched.
 */
export function classify(metadata: ProviderErrorMetadata, options: ClassifyOptions = {}): ClassificationType {
  return run(metadata, options, undefined);
}

/**
 * `classify`; when `explained` is given, the features the rules read are kept in order and
 * handed back in it (only `explainClassification` needs their order).
 */
function run(
  metadata: ProviderErrorMetadata,
  options: ClassifyOptions,
  explained: { features?: Features } | undefined,
): ClassificationType {
  const safe = normalise(metadata);
  const decision: Decision = { verdict: UNRECOGNISED, rule: 'unrecognised' };
  let features: Features | undefined;
  try {
    features = new Features(safe, explained !== undefined);
    decide(safe, features, decision);
  } catch {
    decision.verdict = UNRECOGNISED;
    decision.rule = 'unrecognised';
    features = undefined;
  }
  let { verdict, rule } = decision;
  const transientish = TAXONOMY[verdict.reason].category === 'transient' || verdict.reason === 'quota';
  // The wait: the provider's structured one, else its words, read only when it can matter.
  let retryAfterSeconds = safe.retryAfterSeconds;
  // Only a provider's own words state a wait: a transport error's message never does.
  const providerWords = safe.origin === 'http' || safe.origin === 'stream_event';
  if (retryAfterSeconds === undefined && providerWords && (transientish || options.override !== undefined)) {
    try {
      retryAfterSeconds = features?.waitInWords()?.seconds;
    } catch {
      retryAfterSeconds = undefined;
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
    callerAborted: safe.origin === 'abort',
    decidedBy,
  });
  if (verdict.contactSupport === true) {
    builtIn.userAction = { kind: 'contact_support', detail: verdict.detail };
  }
  if (explained !== undefined && features !== undefined) explained.features = features;
  return options.override === undefined
    ? builtIn
    : applyOverride(options.override, safe, builtIn, retryAfterSeconds, options.idempotent);
}

/** The verdict when the rule table itself failed (never, but classify is total). */
const UNRECOGNISED: Verdict = { reason: 'unknown' };

// The closed sets normalise checks against: module-level, so a call allocates nothing for them
// (normalise runs on every failure).
const ORIGINS: ReadonlySet<string> = new Set(FailureOrigin.options);
const PHASES: ReadonlySet<string> = new Set(NetworkPhase.options);
const CONDITIONS: ReadonlySet<string> = new Set(SdkCondition.options);

/** A field of the metadata; `undefined` when reading it throws (a getter, a proxy). */
function readField(metadata: unknown, key: string): unknown {
  try {
    return (metadata as Record<string, unknown> | null | undefined)?.[key];
  } catch {
    return undefined;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value.slice(0, 8192) : undefined;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The metadata's fields, as `normalise` reads them. */
interface Fields {
  provider: unknown;
  message: unknown;
  origin: unknown;
  statusCode: unknown;
  retryAfterSeconds: unknown;
  sdkErrorType: unknown;
  requestId: unknown;
  providerCode: unknown;
  providerType: unknown;
  providerParam: unknown;
  networkCode: unknown;
  blockReason: unknown;
  networkPhase: unknown;
  quotaIds: unknown;
  sdkCondition: unknown;
}

/**
 * Reads every field once: each read is a property load by a constant name (one inline-cached load
 * where the metadata has one shape, as an extractor's always has), in one `try`; when a read
 * throws, the fields are read again one by one, each throwing read giving `undefined`.
 */
function readFields(metadata: unknown): Fields {
  if (metadata !== null && typeof metadata === 'object') {
    const m = metadata as Record<string, unknown>;
    try {
      return {
        provider: m.provider,
        message: m.message,
        origin: m.origin,
        statusCode: m.statusCode,
        retryAfterSeconds: m.retryAfterSeconds,
        sdkErrorType: m.sdkErrorType,
        requestId: m.requestId,
        providerCode: m.providerCode,
        providerType: m.providerType,
        providerParam: m.providerParam,
        networkCode: m.networkCode,
        blockReason: m.blockReason,
        networkPhase: m.networkPhase,
        quotaIds: m.quotaIds,
        sdkCondition: m.sdkCondition,
      };
    } catch {
      // A getter or proxy threw: read field by field below.
    }
  }
  return {
    provider: readField(metadata, 'provider'),
    message: readField(metadata, 'message'),
    origin: readField(metadata, 'origin'),
    statusCode: readField(metadata, 'statusCode'),
    retryAfterSeconds: readField(metadata, 'retryAfterSeconds'),
    sdkErrorType: readField(metadata, 'sdkErrorType'),
    requestId: readField(metadata, 'requestId'),
    providerCode: readField(metadata, 'providerCode'),
    providerType: readField(metadata, 'providerType'),
    providerParam: readField(metadata, 'providerParam'),
    networkCode: readField(metadata, 'networkCode'),
    blockReason: readField(metadata, 'blockReason'),
    networkPhase: readField(metadata, 'networkPhase'),
    quotaIds: readField(metadata, 'quotaIds'),
    sdkCondition: readField(metadata, 'sdkCondition'),
  };
}

/** Keeps only well-typed fields, so that classify stays total on malformed metadata. */
function normalise(metadata: unknown): ProviderErrorMetadata {
  const fields = readFields(metadata);
  const origin = text(fields.origin);
  const result: ProviderErrorMetadata = {
    provider: text(fields.provider) ?? 'unknown',
    message: text(fields.message) ?? '',
    origin:
      origin !== undefined && ORIGINS.has(origin) ? (origin as ProviderErrorMetadata['origin']) : 'unknown',
  };
  const status = finite(fields.statusCode);
  if (status !== undefined && Number.isInteger(status)) result.statusCode = status;
  const retryAfter = finite(fields.retryAfterSeconds);
  if (retryAfter !== undefined && retryAfter >= 0) result.retryAfterSeconds = retryAfter;
  // One statement a field (not a loop over the names): each store has a constant name, and the
  // fields are added in the same order as before.
  const sdkErrorType = text(fields.sdkErrorType);
  if (sdkErrorType !== undefined) result.sdkErrorType = sdkErrorType;
  const requestId = text(fields.requestId);
  if (requestId !== undefined) result.requestId = requestId;
  const providerCode = text(fields.providerCode);
  if (providerCode !== undefined) result.providerCode = providerCode;
  const providerType = text(fields.providerType);
  if (providerType !== undefined) result.providerType = providerType;
  const providerParam = text(fields.providerParam);
  if (providerParam !== undefined) result.providerParam = providerParam;
  const networkCode = text(fields.networkCode);
  if (networkCode !== undefined) result.networkCode = networkCode;
  const blockReason = text(fields.blockReason);
  if (blockReason !== undefined) result.blockReason = blockReason;
  const phase = text(fields.networkPhase);
  if (phase !== undefined && PHASES.has(phase))
    result.networkPhase = phase as ProviderErrorMetadata['networkPhase'];
  const { quotaIds } = fields;
  if (Array.isArray(quotaIds))
    result.quotaIds = quotaIds
      .slice(0, 50)
      .filter((id): id is string => typeof id === 'string')
      .map((id) => id.slice(0, 200));
  // A plain lookup, not zod's safeParse: a failed parse builds an error object on every call.
  const condition = fields.sdkCondition;
  if (typeof condition === 'string' && CONDITIONS.has(condition))
    result.sdkCondition = condition as SdkCondition;
  return result;
}
