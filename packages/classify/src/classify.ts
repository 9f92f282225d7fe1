import { Classification, FailureOrigin, FailureReason, NetworkPhase, SdkCondition } from './checks.ts';
import { evidenceOf, type FeatureName, Features, secondsOf } from './features.ts';
import { safeGet } from './read.ts';
import { type Rule, ruleInputOf, type Verdict, walkOn } from './rules.ts';
import type {
  Classification as ClassificationType,
  DecidedBy,
  FailureReason as FailureReasonType,
  ProviderErrorMetadata,
  RuleId,
} from './schemas.ts';
import { TAXONOMY, type TaxonomyRow } from './taxonomy.ts';
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
  return classificationOf(
    TAXONOMY[reason],
    reason,
    extras.retryAfterSeconds,
    extras.userActionDetail,
    extras.idempotent === true,
    extras.callerAborted === true,
    extras.decidedBy ?? { rule: 'assigned' },
    false,
  );
}

/**
 * `classificationFor`, its extras passed one by one (classify builds no extras object) and the
 * user action `contact_support` when `contactSupport`. A fresh object every call: the caller owns it.
 */
function classificationOf(
  row: TaxonomyRow,
  reason: FailureReasonType,
  retryAfterSeconds: number | undefined,
  userActionDetail: string | undefined,
  idempotent: boolean,
  callerAborted: boolean,
  decidedBy: DecidedBy,
  contactSupport: boolean,
): ClassificationType {
  const retryable = row.retryable || (row.category === 'ambiguous' && idempotent);
  const { recovery } = row;
  const classification: ClassificationType = {
    category: row.category,
    reason,
    retryable,
    userAction: contactSupport
      ? { kind: 'contact_support', detail: userActionDetail }
      : { kind: row.userAction, detail: userActionDetail ?? row.advice },
    // The three hints written out (a spread of the row's is a generic copy).
    recovery: {
      rotateCredential: recovery.rotateCredential,
      fallback: recovery.fallback,
      compress: recovery.compress,
    },
    domain: row.domain,
    httpStatus: row.httpStatus,
    // An ambiguous failure the caller declared idempotent is simply retryable.
    nextStep: retryable && row.nextStep === 'retry_if_idempotent' ? 'retry' : row.nextStep,
    callerAborted,
    overridden: false,
    decidedBy,
  };
  if (retryAfterSeconds !== undefined) classification.retryAfterSeconds = retryAfterSeconds;
  return classification;
}

/** The wait a provider states in words ("Please try again in 20s", "in 2h 14m"), in seconds. */
export function waitFromText(text: string): number | undefined {
  const words = WAIT_IN_WORDS.find(text.slice(0, 8192).toLowerCase());
  // A piece of the lower-cased text.
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
  options?: ClassifyOptions,
): Explanation {
  const read: { features?: Features } = {};
  // `??`, as classify's: no options given as null reads as none, not as a crash.
  const classification = run(metadata, options ?? NO_OPTIONS, read);
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
export function classify(metadata: ProviderErrorMetadata, options?: ClassifyOptions): ClassificationType {
  return run(metadata, options ?? NO_OPTIONS, undefined);
}

/**
 * `classify`; when `explained` is given, the features the rules read are kept in order and
 * handed back in it (only `explainClassification` needs their order).
 *
 * The rule table runs here: the first rule with a verdict decides. Pure and provider-blind.
 */
function run(
  metadata: ProviderErrorMetadata,
  options: ClassifyOptions,
  explained: { features?: Features } | undefined,
): ClassificationType {
  const safe = normalise(metadata);
  const { origin } = safe;
  let verdict = UNRECOGNISED;
  let rule: Exclude<RuleId, 'assigned'> = 'unrecognised';
  let features: Features | undefined;
  try {
    features = new Features(safe, explained !== undefined);
    const input = ruleInputOf(safe, features);
    // The rules that can answer on this origin, in table order; the last always answers.
    const { rules, needs } = walkOn(origin, safe.sdkCondition !== undefined);
    // explain lists the features the rules read: there every rule is called, as the table says.
    const skipping = explained === undefined;
    for (let index = 0; index < rules.length; index += 1) {
      // A rule whose answer needs a feature the scan left impossible answers nothing: not called.
      const needed = needs[index] as number;
      if (needed !== 0 && skipping && !features.mayHave(needed)) continue;
      const candidate = rules[index] as Rule;
      const answer = candidate.decide(input);
      if (answer !== undefined) {
        verdict = answer;
        rule = candidate.id;
        break;
      }
    }
  } catch {
    verdict = UNRECOGNISED;
    rule = 'unrecognised';
    features = undefined;
  }
  let row = rowOf(verdict.reason);
  const transientish = row.category === 'transient' || verdict.reason === 'quota';
  // The wait: the provider's structured one, else its words, read only when it can matter.
  let retryAfterSeconds = safe.retryAfterSeconds;
  // Only a provider's own words state a wait: a transport error's message never does.
  const providerWords = origin === 'http' || origin === 'stream_event';
  if (retryAfterSeconds === undefined && providerWords && (transientish || options.override !== undefined)) {
    try {
      retryAfterSeconds = features?.waitInWords();
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
    verdict = {
      reason: 'quota',
      evidence: `wait ${Math.round(retryAfterSeconds)}s`,
      detail: undefined,
      contactSupport: undefined,
    };
    rule = 'long_wait';
    row = TAXONOMY.quota;
  }
  const decidedBy: DecidedBy = { rule };
  if (verdict.evidence !== undefined && verdict.evidence !== '') {
    const evidence = evidenceOf(verdict.evidence);
    if (evidence !== '') decidedBy.evidence = evidence;
  }
  const builtIn = classificationOf(
    row,
    verdict.reason,
    transientish ? retryAfterSeconds : undefined,
    verdict.detail,
    options.idempotent === true,
    origin === 'abort',
    decidedBy,
    verdict.contactSupport === true,
  );
  if (explained !== undefined && features !== undefined) explained.features = features;
  return options.override === undefined
    ? builtIn
    : applyOverride(options.override, plainMetadata(safe), builtIn, retryAfterSeconds, options.idempotent);
}

/**
 * The taxonomy row of a reason: a Map read (a keyed read of TAXONOMY by a reason that varies from
 * call to call is a megamorphic one). Built on first use.
 */
function rowOf(reason: FailureReasonType): TaxonomyRow {
  rows ??= new Map(Object.entries(TAXONOMY) as Array<[FailureReasonType, TaxonomyRow]>);
  return rows.get(reason) as TaxonomyRow; // Every reason has a row (TAXONOMY is keyed by FailureReason).
}

let rows: Map<FailureReasonType, TaxonomyRow> | undefined;

/** `classify`'s options when none are given (read only: a call allocates none). */
const NO_OPTIONS: ClassifyOptions = Object.freeze({});

/** The verdict when the rule table itself failed (never, but classify is total). */
const UNRECOGNISED: Verdict = Object.freeze({
  reason: 'unknown',
  evidence: undefined,
  detail: undefined,
  contactSupport: undefined,
});

// The closed sets normalise checks against: module-level, so a call allocates nothing for them
// (normalise runs on every failure).
const ORIGINS: ReadonlySet<string> = new Set(FailureOrigin.options);
const PHASES: ReadonlySet<string> = new Set(NetworkPhase.options);
const CONDITIONS: ReadonlySet<string> = new Set(SdkCondition.options);

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Most fields are short: a length test is cheaper than a call to slice.
  return value.length > 8192 ? value.slice(0, 8192) : value;
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The origin, when it is one of the closed set; else `unknown`. */
function originOf(value: unknown): FailureOrigin {
  // The last origin seen answers first (one comparison: an application's failures mostly share one).
  if (value === lastOrigin) return lastOrigin;
  if (typeof value !== 'string' || !ORIGINS.has(value)) return 'unknown';
  lastOrigin = value as FailureOrigin;
  return lastOrigin;
}

let lastOrigin: FailureOrigin = 'http';

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
 * The metadata as the rules and `Features` read it: only well-typed fields, and every field
 * present (`undefined` when absent), so that every classify builds an object of ONE shape and
 * each rule's field load is a monomorphic one (a plain object with only the present fields had a
 * shape per combination of fields, and the loads in the rules went megamorphic). An override
 * sees `plainMetadata` of it, a plain object with only the present fields, as before.
 */
class Normalised {
  readonly provider: string;
  readonly message: string;
  readonly origin: ProviderErrorMetadata['origin'];
  readonly statusCode: number | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly sdkErrorType: string | undefined;
  readonly requestId: string | undefined;
  readonly providerCode: string | undefined;
  readonly providerType: string | undefined;
  readonly providerParam: string | undefined;
  readonly networkCode: string | undefined;
  readonly blockReason: string | undefined;
  readonly networkPhase: ProviderErrorMetadata['networkPhase'];
  readonly quotaIds: string[] | undefined;
  readonly sdkCondition: SdkCondition | undefined;

  // One parameter a field (not an object of them): the reads below pass them straight in.
  constructor(
    provider: unknown,
    message: unknown,
    origin: unknown,
    statusCode: unknown,
    retryAfterSeconds: unknown,
    sdkErrorType: unknown,
    requestId: unknown,
    providerCode: unknown,
    providerType: unknown,
    providerParam: unknown,
    networkCode: unknown,
    blockReason: unknown,
    networkPhase: unknown,
    quotaIds: unknown,
    sdkCondition: unknown,
  ) {
    this.provider = text(provider) ?? 'unknown';
    this.message = text(message) ?? '';
    this.origin = originOf(origin);
    const status = finite(statusCode);
    this.statusCode = status !== undefined && Number.isInteger(status) ? status : undefined;
    const retryAfter = finite(retryAfterSeconds);
    this.retryAfterSeconds = retryAfter !== undefined && retryAfter >= 0 ? retryAfter : undefined;
    this.sdkErrorType = text(sdkErrorType);
    this.requestId = text(requestId);
    this.providerCode = text(providerCode);
    this.providerType = text(providerType);
    this.providerParam = text(providerParam);
    this.networkCode = text(networkCode);
    this.blockReason = text(blockReason);
    const phase = text(networkPhase);
    this.networkPhase =
      phase !== undefined && PHASES.has(phase) ? (phase as ProviderErrorMetadata['networkPhase']) : undefined;
    this.quotaIds = quotaIdsOf(quotaIds);
    // A plain lookup, not zod's safeParse: a failed parse builds an error object on every call.
    this.sdkCondition =
      typeof sdkCondition === 'string' && CONDITIONS.has(sdkCondition)
        ? (sdkCondition as SdkCondition)
        : undefined;
  }
}

/**
 * Keeps only well-typed fields, so that classify stays total on malformed metadata. Reads every
 * field once: each read is a property load by a constant name (one inline-cached load where the
 * metadata has one shape, as an extractor's always has), in one `try`; when a read throws, the
 * fields are read again one by one, each throwing read giving `undefined`.
 */
function normalise(metadata: unknown): Normalised {
  if (metadata !== null && typeof metadata === 'object') {
    const m = metadata as Record<string, unknown>;
    try {
      return new Normalised(
        m.provider,
        m.message,
        m.origin,
        m.statusCode,
        m.retryAfterSeconds,
        m.sdkErrorType,
        m.requestId,
        m.providerCode,
        m.providerType,
        m.providerParam,
        m.networkCode,
        m.blockReason,
        m.networkPhase,
        m.quotaIds,
        m.sdkCondition,
      );
    } catch {
      // A getter or proxy threw: read field by field below.
    }
  }
  return new Normalised(
    safeGet(metadata, 'provider'),
    safeGet(metadata, 'message'),
    safeGet(metadata, 'origin'),
    safeGet(metadata, 'statusCode'),
    safeGet(metadata, 'retryAfterSeconds'),
    safeGet(metadata, 'sdkErrorType'),
    safeGet(metadata, 'requestId'),
    safeGet(metadata, 'providerCode'),
    safeGet(metadata, 'providerType'),
    safeGet(metadata, 'providerParam'),
    safeGet(metadata, 'networkCode'),
    safeGet(metadata, 'blockReason'),
    safeGet(metadata, 'networkPhase'),
    safeGet(metadata, 'quotaIds'),
    safeGet(metadata, 'sdkCondition'),
  );
}

/** The normalised metadata as an override sees it: a plain object of the present fields, in this order. */
function plainMetadata(safe: Normalised): ProviderErrorMetadata {
  const result: ProviderErrorMetadata = {
    provider: safe.provider,
    message: safe.message,
    origin: safe.origin,
  };
  if (safe.statusCode !== undefined) result.statusCode = safe.statusCode;
  if (safe.retryAfterSeconds !== undefined) result.retryAfterSeconds = safe.retryAfterSeconds;
  if (safe.sdkErrorType !== undefined) result.sdkErrorType = safe.sdkErrorType;
  if (safe.requestId !== undefined) result.requestId = safe.requestId;
  if (safe.providerCode !== undefined) result.providerCode = safe.providerCode;
  if (safe.providerType !== undefined) result.providerType = safe.providerType;
  if (safe.providerParam !== undefined) result.providerParam = safe.providerParam;
  if (safe.networkCode !== undefined) result.networkCode = safe.networkCode;
  if (safe.blockReason !== undefined) result.blockReason = safe.blockReason;
  if (safe.networkPhase !== undefined) result.networkPhase = safe.networkPhase;
  if (safe.quotaIds !== undefined) result.quotaIds = safe.quotaIds;
  if (safe.sdkCondition !== undefined) result.sdkCondition = safe.sdkCondition;
  return result;
}
