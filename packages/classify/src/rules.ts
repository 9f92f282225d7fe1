import { INDEX_OF as FEATURE, type Features } from './features.ts';
import type { FailureOrigin, FailureReason, ProviderErrorMetadata, RuleId } from './schemas.ts';

/** What one rule of the table concluded. */
export interface Verdict {
  readonly reason: FailureReason;
  /** The piece of input the rule matched (scrubbed and bounded by classify before it leaves). */
  readonly evidence?: string | undefined;
  /** Advice for a person that replaces the taxonomy row's. */
  readonly detail?: string | undefined;
  /** The user action is `contact_support` (an account block). */
  readonly contactSupport?: boolean | undefined;
}

/** What a rule reads: the normalised metadata and the lazily read features. */
export interface RuleInput {
  readonly metadata: ProviderErrorMetadata;
  readonly features: Features;
  readonly status: number | undefined;
  /** The provider itself answered (an HTTP error, a stream error event, a withheld answer). */
  readonly providerSpoke: boolean;
  /** A status that can carry the account's state: 400, 402, 403, 429, or none (a stream event). */
  readonly accountStatus: boolean;
}

/**
 * The input of every rule for `metadata` (normalised) and its `features`: classify's, and the one
 * rules.test.ts checks the gates with.
 */
export function ruleInputOf(metadata: ProviderErrorMetadata, features: Features): RuleInput {
  const { origin } = metadata;
  const status = metadata.statusCode;
  return {
    metadata,
    features,
    status,
    providerSpoke: origin === 'http' || origin === 'stream_event' || origin === 'blocked_response',
    accountStatus:
      status === undefined || status === 400 || status === 402 || status === 403 || status === 429,
  };
}

/** One row of the rule table: a stable id, what it means, and its test. */
export interface Rule {
  readonly id: Exclude<RuleId, 'long_wait' | 'assigned'>;
  readonly means: string;
  /**
   * The origins on which the rule can answer (and read features), when only some: on any other,
   * `decide` returns `undefined` having read nothing, so classify does not call it (it walks the
   * rules of the failure's origin; a test checks each gate against its rule's test).
   */
  readonly origins?: readonly FailureOrigin[];
  /** The rule answers only on an SDK condition (`metadata.sdkCondition`): without one, classify skips it. */
  readonly needsSdkCondition?: true;
  /**
   * The text features (their INDEX_OF) one of which the rule's answer needs: where the literal scan
   * leaves none of them possible, the rule answers `undefined`, and classify does not call it (a
   * test checks each against its rule's test). `explainClassification` calls it all the same, so
   * that the features it lists are the ones the rules read.
   */
  readonly answersOnlyWith?: readonly number[];
  readonly decide: (input: RuleInput) => Verdict | undefined;
}

/** Where the provider spoke: an HTTP error, a stream error event, a withheld answer. */
const SPOKE = ['http', 'stream_event', 'blocked_response'] as const satisfies readonly FailureOrigin[];

const NETWORK_REASON_BY_PHASE = {
  dns: 'endpoint',
  connect: 'connection',
  before_response: 'interrupted',
  response_body: 'interrupted',
  stream: 'interrupted',
  unknown: 'interrupted',
} as const satisfies Record<string, FailureReason>;

/** docs/contributing/design.md: with no provider signal in the body, the status decides. */
export function reasonFromStatus(status: number): FailureReason {
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

/**
 * A verdict. Every verdict has the same four fields (`undefined` where absent), so classify's reads
 * of the one a rule gave stay monomorphic (an object literal per rule, with its own set of fields,
 * was a shape per rule). A verdict is never changed: one whose fields are all constant is built
 * once (`fixed`), not per call.
 */
const verdict = (
  reason: FailureReason,
  evidence?: string | undefined,
  detail?: string | undefined,
  contactSupport?: boolean | undefined,
): Verdict => ({ reason, evidence, detail, contactSupport });

/** A verdict built once, shared by every call of its rule (frozen: nothing may change it). */
const fixed = (reason: FailureReason, evidence?: string): Verdict => Object.freeze(verdict(reason, evidence));

/** The verdict `reason` with `evidence` as its evidence, when there is evidence. */
const when = (reason: FailureReason, evidence: string | undefined): Verdict | undefined =>
  evidence === undefined ? undefined : verdict(reason, evidence);

const below500 = (status: number | undefined): boolean => status === undefined || status < 500;

/** A window or an allowance counts where a limit is in question: a 429, or limit words nearby. */
const limitInQuestion = (input: RuleInput): boolean =>
  input.accountStatus && (input.status === 429 || input.features.get(FEATURE.limitContext) !== undefined);

const ACCOUNT_BLOCKED = 'The provider has blocked this account. Contact its support.';

// The verdicts whose every field is constant.
const LOCAL_BUG = fixed('local_bug');
const CANCELLED = fixed('cancelled');
const UNKNOWN = fixed('unknown');
const MISSING_CREDENTIALS = fixed('auth', 'sdkCondition missing_credentials');
const MISSING_REGION = fixed('endpoint', 'sdkCondition missing_region');
const STREAM_INCOMPLETE = fixed('interrupted', 'sdkCondition stream_incomplete');
const UNKNOWN_MODEL = fixed('model_not_found', 'sdkCondition unknown_model');
const STATUS_401 = fixed('auth', 'status 401');
const STATUS_402 = fixed('billing', 'status 402');
const STATUS_403 = fixed('permission', 'status 403');
const STATUS_429 = fixed('rate_limit', 'status 429');

/**
 * THE rule table, in order: the first rule that gives a verdict decides. Structured fields
 * (origin, SDK condition, quota ids, status) come before words, and each rule reads only the
 * features it needs, so a structured field that decides spares every vocabulary after it.
 * A rule's id is stable: overrides and dashboards key on it (a test pins the list).
 */
export const RULES: readonly Rule[] = [
  {
    id: 'local_error',
    means: 'A programming error thrown before or after the provider call.',
    origins: ['local'],
    decide: ({ metadata }) => (metadata.origin === 'local' ? LOCAL_BUG : undefined),
  },
  {
    id: 'caller_abort',
    means: "The caller's own AbortSignal ended the call: not a provider failure.",
    origins: ['abort'],
    decide: ({ metadata }) => (metadata.origin === 'abort' ? CANCELLED : undefined),
  },
  {
    id: 'sdk_missing_credentials',
    means: 'The SDK (its adapter says) was built without a key or credentials: nothing was sent.',
    needsSdkCondition: true,
    decide: ({ metadata }) =>
      metadata.sdkCondition === 'missing_credentials' ? MISSING_CREDENTIALS : undefined,
  },
  {
    id: 'sdk_missing_region',
    means: 'The SDK (its adapter says) has no region or endpoint to build a URL: nothing was sent.',
    needsSdkCondition: true,
    decide: ({ metadata }) => (metadata.sdkCondition === 'missing_region' ? MISSING_REGION : undefined),
  },
  {
    id: 'sdk_stream_incomplete',
    means: 'The SDK (its adapter says) could not assemble an answer from a cut or malformed stream.',
    needsSdkCondition: true,
    decide: ({ metadata }) => (metadata.sdkCondition === 'stream_incomplete' ? STREAM_INCOMPLETE : undefined),
  },
  {
    id: 'sdk_unknown_model',
    means: 'The SDK (its adapter says) has no model of that id in its registry: nothing was sent.',
    needsSdkCondition: true,
    decide: ({ metadata }) => (metadata.sdkCondition === 'unknown_model' ? UNKNOWN_MODEL : undefined),
  },
  {
    id: 'blocked_overflow',
    means: 'A success answer was withheld because the input or output hit the length limit.',
    origins: ['blocked_response'],
    answersOnlyWith: [FEATURE.overflow],
    decide: ({ metadata, features }) =>
      metadata.origin === 'blocked_response'
        ? when('context_overflow', features.get(FEATURE.overflow))
        : undefined,
  },
  {
    id: 'blocked_answer',
    means: "A success answer was withheld by the provider's safety system.",
    origins: ['blocked_response'],
    decide: ({ metadata }) =>
      metadata.origin === 'blocked_response'
        ? verdict('content_policy', metadata.blockReason ?? metadata.providerCode)
        : undefined,
  },
  {
    id: 'overflow_vocabulary',
    means: 'The provider says the input does not fit the context: wins over a 5xx, a 429 and a stream error.',
    origins: [...SPOKE, 'validation'],
    answersOnlyWith: [FEATURE.overflow, FEATURE.ambiguousOverflow],
    decide: ({ metadata, features, providerSpoke }) => {
      if (!providerSpoke && metadata.origin !== 'validation') return undefined;
      const overflow = features.get(FEATURE.overflow);
      if (overflow !== undefined) return verdict('context_overflow', overflow);
      // "too many tokens" is the input's size only when no window or throttle is named beside it.
      const ambiguous = features.get(FEATURE.ambiguousOverflow);
      if (
        ambiguous === undefined ||
        features.get(FEATURE.shortWindow) !== undefined ||
        features.get(FEATURE.longWindow) !== undefined ||
        features.get(FEATURE.throttle) !== undefined
      )
        return undefined;
      return verdict('context_overflow', ambiguous);
    },
  },
  {
    id: 'request_too_large',
    means:
      'A 429/413 saying (in words, or with numbers: Requested > Limit) that this one request is larger than the per-minute budget: waiting never helps.',
    origins: SPOKE,
    answersOnlyWith: [FEATURE.tooLargeForBudget, FEATURE.limitNumbers],
    decide: ({ status, features, providerSpoke }) =>
      providerSpoke && (status === 429 || status === 413)
        ? when('context_overflow', features.get(FEATURE.tooLargeForBudget) ?? features.requestOverLimit())
        : undefined,
  },
  {
    id: 'network_phase',
    means:
      'A transport failure: its phase decides (dns → endpoint, connect → connection, later → interrupted).',
    origins: ['network'],
    decide: ({ metadata }) => {
      if (metadata.origin !== 'network') return undefined;
      const phase = metadata.networkPhase ?? 'unknown';
      return verdict(NETWORK_REASON_BY_PHASE[phase], `${metadata.networkCode ?? 'network'} (${phase})`);
    },
  },
  {
    id: 'deadline',
    means: 'A deadline fired: before the answer it is a timeout, during the body or stream an interruption.',
    origins: ['timeout'],
    decide: ({ metadata }) => {
      if (metadata.origin !== 'timeout') return undefined;
      const phase = metadata.networkPhase ?? 'unknown';
      return verdict(
        phase === 'stream' || phase === 'response_body' ? 'interrupted' : 'timeout',
        `timeout (${phase})`,
      );
    },
  },
  {
    id: 'unreadable_body',
    means: 'A success status whose body could not be read.',
    origins: ['malformed_response'],
    decide: ({ metadata, status }) =>
      metadata.origin === 'malformed_response' && (status === undefined || status < 400)
        ? verdict(
            'interrupted',
            status === undefined ? 'unreadable body' : `status ${status}, unreadable body`,
            'The provider answered with a body that could not be read.',
          )
        : undefined,
  },
  {
    id: 'success_status',
    means: 'A non-error status reached an extractor with no provider words.',
    origins: ['network', 'timeout', 'abort', 'malformed_response', 'local', 'validation', 'unknown'],
    decide: ({ status, providerSpoke }) =>
      status !== undefined && status < 400 && !providerSpoke
        ? verdict('unknown', `status ${status}`)
        : undefined,
  },
  {
    id: 'no_provider_signal',
    means: 'No status, no provider words and no SDK error type: nothing to read.',
    origins: ['network', 'timeout', 'abort', 'malformed_response', 'local', 'unknown'],
    decide: ({ metadata, status, providerSpoke }) =>
      status === undefined &&
      !providerSpoke &&
      metadata.origin !== 'validation' &&
      metadata.sdkErrorType === undefined &&
      metadata.providerType === undefined
        ? UNKNOWN
        : undefined,
  },
  {
    id: 'quota_id_long_window',
    means: 'A structured quota id with a day/week/month window: a spent allowance (the tier never counts).',
    decide: ({ features }) => {
      const window = features.quotaIdWindow();
      return window?.window === 'long' ? verdict('quota', window.quotaId) : undefined;
    },
  },
  {
    id: 'quota_id_short_window',
    means: 'A structured quota id with a second/minute window: a rate limit, whatever the text or tier says.',
    decide: ({ features }) => {
      const window = features.quotaIdWindow();
      return window?.window === 'short' ? verdict('rate_limit', window.quotaId) : undefined;
    },
  },
  {
    id: 'account_block',
    means: 'An account block only the provider can lift: permission, contact support.',
    answersOnlyWith: [FEATURE.accountBlock],
    decide: ({ features }) => {
      const block = features.get(FEATURE.accountBlock);
      return block === undefined ? undefined : verdict('permission', block, ACCOUNT_BLOCKED, true);
    },
  },
  {
    id: 'payment_status',
    means: '402 is the billing status: allowance words in its text do not move it.',
    decide: ({ status }) => (status === 402 ? STATUS_402 : undefined),
  },
  {
    id: 'long_window',
    means:
      'The words name a long window (per day/month, RPD/TPD, daily, resets at a date) of a limit: quota.',
    answersOnlyWith: [FEATURE.longWindow],
    decide: (input) =>
      limitInQuestion(input) ? when('quota', input.features.get(FEATURE.longWindow)) : undefined,
  },
  {
    id: 'short_window',
    means:
      'The words name a short window (per second/minute, RPM/TPM) of a limit: a rate limit, even beside quota or billing words.',
    answersOnlyWith: [FEATURE.shortWindow],
    decide: (input) =>
      limitInQuestion(input) ? when('rate_limit', input.features.get(FEATURE.shortWindow)) : undefined,
  },
  {
    id: 'payment_vocabulary',
    means:
      'The account cannot pay (credit balance, insufficient funds, payment, billing not active, arrears), even on a 5xx.',
    answersOnlyWith: [FEATURE.payment],
    // A spent balance is terminal whatever the status: MiniMax answers "insufficient balance (1008)" with a 500.
    decide: ({ accountStatus, status, features }) =>
      accountStatus || (status !== undefined && status >= 500)
        ? when('billing', features.get(FEATURE.payment))
        : undefined,
  },
  {
    id: 'allowance_vocabulary',
    means:
      'The allowance is spent (quota, usage/spend/key limits, budgets, plans, allocations, extra usage, billing).',
    answersOnlyWith: [FEATURE.allowance],
    decide: ({ accountStatus, features }) =>
      accountStatus ? when('quota', features.get(FEATURE.allowance)) : undefined,
  },
  {
    id: 'credential_rejected',
    means: 'The credential itself was rejected, even on a 403 (AWS answers a bad key or signature with 403).',
    answersOnlyWith: [FEATURE.credentialRejected],
    decide: ({ features }) => when('auth', features.get(FEATURE.credentialRejected)),
  },
  {
    id: 'auth_status',
    means: '401: the key was rejected.',
    decide: ({ status }) => (status === 401 ? STATUS_401 : undefined),
  },
  {
    id: 'auth_vocabulary',
    means: 'The words say the key was rejected (not on a 403, where the key was read and refused).',
    answersOnlyWith: [FEATURE.auth],
    decide: ({ status, features }) => (status !== 403 ? when('auth', features.get(FEATURE.auth)) : undefined),
  },
  {
    id: 'model_unavailable',
    means:
      'The model, deployment or endpoint does not exist or cannot serve this request (inference profile, on-demand throughput, plan, router "no endpoints"), on a 5xx too unless the answer says it is busy.',
    answersOnlyWith: [FEATURE.availability, FEATURE.noRoute],
    decide: ({ status, features }) => {
      if (below500(status))
        return when('model_not_found', features.get(FEATURE.availability) ?? features.get(FEATURE.noRoute));
      // On a 5xx the model's words hold too (SiliconFlow 500 "Model not found.", a relay's 503 "no channel
      // for model x"), and a router's "no provider/endpoint", unless the answer also says it is busy.
      if (features.get(FEATURE.capacity) !== undefined) return undefined;
      return when('model_not_found', features.get(FEATURE.availability) ?? features.get(FEATURE.noRoute));
    },
  },
  {
    id: 'content_policy_vocabulary',
    means: 'The provider refused the content.',
    answersOnlyWith: [FEATURE.contentPolicy],
    decide: ({ status, features }) =>
      below500(status) ? when('content_policy', features.get(FEATURE.contentPolicy)) : undefined,
  },
  {
    id: 'permission_vocabulary',
    means: 'The key is valid but not allowed (access denied, region not supported).',
    answersOnlyWith: [FEATURE.permission],
    decide: ({ features }) => when('permission', features.get(FEATURE.permission)),
  },
  {
    id: 'forbidden_status',
    means: '403: the key was read and refused.',
    decide: ({ status }) => (status === 403 ? STATUS_403 : undefined),
  },
  {
    id: 'unsupported_media',
    means: 'The provider cannot take this media type or format.',
    answersOnlyWith: [FEATURE.unsupportedMedia],
    decide: ({ status, features }) =>
      status === undefined || status === 400 || status === 415 || status === 422
        ? when('unsupported_media', features.get(FEATURE.unsupportedMedia))
        : undefined,
  },
  {
    id: 'warming_up',
    means: "The model is being loaded: busy, even on a 429 (not the account's rate).",
    answersOnlyWith: [FEATURE.warmingUp],
    decide: ({ features }) => when('overloaded', features.get(FEATURE.warmingUp)),
  },
  {
    id: 'capacity_vocabulary',
    means: 'The provider says it is busy (overloaded, capacity, unavailable), whatever the status.',
    answersOnlyWith: [FEATURE.capacity],
    decide: ({ features }) => when('overloaded', features.get(FEATURE.capacity)),
  },
  {
    id: 'throttle_vocabulary',
    means:
      'The words say the key is throttled (rate limit, too many requests, resource exhausted), below 500.',
    answersOnlyWith: [FEATURE.throttle],
    decide: ({ status, features }) =>
      status === undefined || status === 429 || status < 500
        ? when('rate_limit', features.get(FEATURE.throttle))
        : undefined,
  },
  {
    id: 'throttle_status',
    means: '429 with no other signal: a rate limit.',
    decide: ({ status }) => (status === 429 ? STATUS_429 : undefined),
  },
  {
    id: 'status_default',
    means: 'With no provider signal in the body, the status decides (docs/contributing/design.md).',
    decide: ({ status }) =>
      status === undefined ? undefined : verdict(reasonFromStatus(status), `status ${status}`),
  },
  {
    id: 'invalid_request_vocabulary',
    means: 'No status; the words say the request was malformed.',
    answersOnlyWith: [FEATURE.invalidRequest],
    decide: ({ features }) => when('invalid_request', features.get(FEATURE.invalidRequest)),
  },
  {
    id: 'server_vocabulary',
    means: 'No status; the words say the provider failed on its side.',
    answersOnlyWith: [FEATURE.serverFault],
    decide: ({ features }) => when('server_error', features.get(FEATURE.serverFault)),
  },
  {
    id: 'sdk_validation',
    means: 'The SDK rejected its own input or setup before sending.',
    origins: ['validation'],
    decide: ({ metadata }) =>
      metadata.origin === 'validation'
        ? verdict('invalid_request', metadata.sdkErrorType ?? 'validation')
        : undefined,
  },
  {
    id: 'unrecognised',
    means: 'Nothing above matched: unknown, never retried.',
    decide: () => UNKNOWN,
  },
];

/**
 * The rules of the table that can answer on an origin, in order (a rule gated to other origins,
 * or needing an SDK condition the failure lacks, would return `undefined` having read nothing):
 * an HTTP failure walks 26 rules of 40. Built per origin on first use. classify walks these;
 * rules.test.ts checks that every rule left out answers nothing and reads nothing.
 */
export function rulesOn(origin: FailureOrigin, sdkCondition: boolean): readonly Rule[] {
  return walkOn(origin, sdkCondition).rules;
}

/** The rules classify walks on an origin (`rulesOn`), with each one's `answersOnlyWith` as a mask. */
export interface RuleWalk {
  readonly rules: readonly Rule[];
  /** Bit i of entry r: rule r answers only with feature i; 0 when it names none (always called). */
  readonly needs: Int32Array;
}

/** `rulesOn`'s rules and their feature masks, built per origin on first use. */
export function walkOn(origin: FailureOrigin, sdkCondition: boolean): RuleWalk {
  const walks = sdkCondition ? WALKS_WITH_CONDITION : WALKS_WITHOUT_CONDITION;
  let walk = walks.get(origin);
  if (walk === undefined) {
    const rules = RULES.filter(
      (candidate) =>
        (candidate.origins === undefined || candidate.origins.includes(origin)) &&
        (sdkCondition || candidate.needsSdkCondition !== true),
    );
    const needs = Int32Array.from(rules, (rule) =>
      (rule.answersOnlyWith ?? []).reduce((mask, index) => mask | (1 << index), 0),
    );
    walk = { rules, needs };
    walks.set(origin, walk);
  }
  return walk;
}

const WALKS_WITHOUT_CONDITION = new Map<FailureOrigin, RuleWalk>();
const WALKS_WITH_CONDITION = new Map<FailureOrigin, RuleWalk>();
