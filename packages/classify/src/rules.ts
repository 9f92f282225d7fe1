import type { Features } from './features.ts';
import type { FailureReason, ProviderErrorMetadata, RuleId } from './schemas.ts';

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

/** The input of every rule for `metadata` (normalised) and its `features`. */
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
  readonly decide: (input: RuleInput) => Verdict | undefined;
}

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

const verdict = (reason: FailureReason, evidence?: string): Verdict => ({ reason, evidence });

/** The verdict `reason` with `evidence` as its evidence, when there is evidence. */
const when = (reason: FailureReason, evidence: string | undefined): Verdict | undefined =>
  evidence === undefined ? undefined : verdict(reason, evidence);

const below500 = (status: number | undefined): boolean => status === undefined || status < 500;

/**
 * A window or an allowance counts where a limit is in question: a 429, or limit words nearby. On a 5xx
 * too (with limit words): a spent allowance is terminal whatever the status (g4f answers "Token limit
 * (500,000 per day) exceeded" with a 500).
 */
const limitInQuestion = (input: RuleInput): boolean =>
  input.status === 429 ||
  ((input.accountStatus || (input.status !== undefined && input.status >= 500)) &&
    input.features.get('limitContext') !== undefined);

const ACCOUNT_BLOCKED = 'The provider has blocked this account. Contact its support.';

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
    decide: ({ metadata }) => (metadata.origin === 'local' ? verdict('local_bug') : undefined),
  },
  {
    id: 'caller_abort',
    means: "The caller's own AbortSignal ended the call: not a provider failure.",
    decide: ({ metadata }) => (metadata.origin === 'abort' ? verdict('cancelled') : undefined),
  },
  {
    id: 'sdk_missing_credentials',
    means: 'The SDK (its adapter says) was built without a key or credentials: nothing was sent.',
    decide: ({ metadata }) =>
      metadata.sdkCondition === 'missing_credentials'
        ? verdict('auth', 'sdkCondition missing_credentials')
        : undefined,
  },
  {
    id: 'sdk_missing_region',
    means: 'The SDK (its adapter says) has no region or endpoint to build a URL: nothing was sent.',
    decide: ({ metadata }) =>
      metadata.sdkCondition === 'missing_region'
        ? verdict('endpoint', 'sdkCondition missing_region')
        : undefined,
  },
  {
    id: 'sdk_stream_incomplete',
    means: 'The SDK (its adapter says) could not assemble an answer from a cut or malformed stream.',
    decide: ({ metadata }) =>
      metadata.sdkCondition === 'stream_incomplete'
        ? verdict('interrupted', 'sdkCondition stream_incomplete')
        : undefined,
  },
  {
    id: 'sdk_unknown_model',
    means: 'The SDK (its adapter says) has no model of that id in its registry: nothing was sent.',
    decide: ({ metadata }) =>
      metadata.sdkCondition === 'unknown_model'
        ? verdict('model_not_found', 'sdkCondition unknown_model')
        : undefined,
  },
  {
    id: 'blocked_overflow',
    means: 'A success answer was withheld because the input or output hit the length limit.',
    decide: ({ metadata, features }) =>
      metadata.origin === 'blocked_response' ? when('context_overflow', features.get('overflow')) : undefined,
  },
  {
    id: 'blocked_answer',
    means: "A success answer was withheld by the provider's safety system.",
    decide: ({ metadata }) =>
      metadata.origin === 'blocked_response'
        ? verdict('content_policy', metadata.blockReason ?? metadata.providerCode)
        : undefined,
  },
  {
    id: 'overflow_vocabulary',
    means: 'The provider says the input does not fit the context: wins over a 5xx, a 429 and a stream error.',
    decide: ({ metadata, features, providerSpoke }) => {
      if (!providerSpoke && metadata.origin !== 'validation') return undefined;
      const overflow = features.get('overflow');
      if (overflow !== undefined) return verdict('context_overflow', overflow);
      // "too many tokens" is the input's size only when no window, throttle or output cap is named
      // beside it.
      const ambiguous = features.get('ambiguousOverflow');
      if (
        ambiguous === undefined ||
        features.get('outputCap') !== undefined ||
        features.get('shortWindow') !== undefined ||
        features.get('longWindow') !== undefined ||
        features.get('throttle') !== undefined
      )
        return undefined;
      return verdict('context_overflow', ambiguous);
    },
  },
  {
    id: 'request_too_large',
    means:
      'A 429/413 saying (in words, or with numbers: Requested > Limit) that this one request is larger than the per-minute budget: waiting never helps.',
    decide: ({ status, features, providerSpoke }) =>
      providerSpoke && (status === 429 || status === 413)
        ? when('context_overflow', features.get('tooLargeForBudget') ?? features.requestOverLimit())
        : undefined,
  },
  {
    id: 'network_phase',
    means:
      'A transport failure: its phase decides (dns → endpoint, connect → connection, later → interrupted).',
    decide: ({ metadata }) => {
      if (metadata.origin !== 'network') return undefined;
      const phase = metadata.networkPhase ?? 'unknown';
      return verdict(NETWORK_REASON_BY_PHASE[phase], `${metadata.networkCode ?? 'network'} (${phase})`);
    },
  },
  {
    id: 'deadline',
    means: 'A deadline fired: before the answer it is a timeout, during the body or stream an interruption.',
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
    decide: ({ metadata, status }) =>
      metadata.origin === 'malformed_response' && (status === undefined || status < 400)
        ? {
            reason: 'interrupted',
            evidence: status === undefined ? 'unreadable body' : `status ${status}, unreadable body`,
            detail: 'The provider answered with a body that could not be read.',
          }
        : undefined,
  },
  {
    id: 'success_status',
    means: 'A non-error status reached an extractor with no provider words.',
    decide: ({ status, providerSpoke }) =>
      status !== undefined && status < 400 && !providerSpoke
        ? verdict('unknown', `status ${status}`)
        : undefined,
  },
  {
    id: 'no_provider_signal',
    means: 'No status, no provider words and no SDK error type: nothing to read.',
    decide: ({ metadata, status, providerSpoke }) =>
      status === undefined &&
      !providerSpoke &&
      metadata.origin !== 'validation' &&
      metadata.sdkErrorType === undefined &&
      metadata.providerType === undefined
        ? verdict('unknown')
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
    decide: ({ features }) => {
      const block = features.get('accountBlock');
      return block === undefined
        ? undefined
        : { reason: 'permission', evidence: block, detail: ACCOUNT_BLOCKED, contactSupport: true };
    },
  },
  {
    id: 'payment_status',
    means: '402 is the billing status: allowance words in its text do not move it.',
    decide: ({ status }) => (status === 402 ? verdict('billing', 'status 402') : undefined),
  },
  {
    id: 'long_window',
    means:
      'The words name a long window (per day/month, RPD/TPD, daily, resets at a date) of a limit: quota.',
    decide: (input) => (limitInQuestion(input) ? when('quota', input.features.get('longWindow')) : undefined),
  },
  {
    id: 'short_window',
    means:
      'The words name a short window (per second/minute, RPM/TPM) of a limit: a rate limit, even beside quota or billing words.',
    decide: (input) =>
      limitInQuestion(input) ? when('rate_limit', input.features.get('shortWindow')) : undefined,
  },
  {
    id: 'payment_vocabulary',
    means:
      'The account cannot pay (credit balance, insufficient funds, payment, billing not active, arrears), even on a 5xx.',
    // A spent balance is terminal whatever the status: MiniMax answers "insufficient balance (1008)" with a 500,
    // a relay in front of OpenCode "Insufficient balance. Manage your billing here" with a 401.
    decide: ({ accountStatus, status, features }) => {
      if (!accountStatus && status !== 401 && (status === undefined || status < 500)) return undefined;
      const payment = features.get('payment');
      if (payment !== undefined) return verdict('billing', payment);
      // A remedy ("complete your payment information") is billing unless a spent allowance is the cause named.
      const remedy = features.get('paymentRemedy');
      return remedy !== undefined && features.get('allowance') === undefined
        ? verdict('billing', remedy)
        : undefined;
    },
  },
  {
    id: 'allowance_vocabulary',
    means:
      'The allowance is spent (quota, usage/spend/key limits, budgets, plans, allocations, extra usage, billing).',
    decide: ({ accountStatus, features }) =>
      accountStatus ? when('quota', features.get('allowance')) : undefined,
  },
  {
    id: 'credential_rejected',
    means: 'The credential itself was rejected, even on a 403 (AWS answers a bad key or signature with 403).',
    decide: ({ features }) => when('auth', features.get('credentialRejected')),
  },
  {
    id: 'auth_status',
    means:
      '401: the key was rejected, unless the words say the key was read and is not allowed this (permission).',
    // LiteLLM answers "key not allowed to access model. This key can only access models=[...]" with a 401:
    // the key is valid, what it may use is not; permission_vocabulary reads it.
    decide: ({ status, features }) =>
      status === 401 && (features.get('permission') === undefined || features.get('auth') !== undefined)
        ? verdict('auth', 'status 401')
        : undefined,
  },
  {
    id: 'auth_vocabulary',
    means: 'The words say the key was rejected (not on a 403, where the key was read and refused).',
    decide: ({ status, features }) => (status !== 403 ? when('auth', features.get('auth')) : undefined),
  },
  {
    id: 'model_unavailable',
    means:
      'The model, deployment or endpoint does not exist or cannot serve this request (inference profile, on-demand throughput, plan, router "no endpoints"), on a 5xx too unless the answer says it is busy.',
    decide: ({ status, features }) => {
      const unavailable = features.get('availability') ?? features.get('noRoute');
      if (unavailable === undefined) return undefined;
      // A router with no deployment free "Try again in 60 seconds" is cooling its deployments down, not
      // missing the model (LiteLLM "No deployments available for selected model, Try again in 60 seconds").
      if (features.get('waitInWords') !== undefined) return undefined;
      // On a 5xx the model's words hold too (SiliconFlow 500 "Model not found.", a relay's 503 "no channel
      // for model x"), and a router's "no provider/endpoint", unless the answer also says it is busy.
      if (!below500(status) && features.get('capacity') !== undefined) return undefined;
      return verdict('model_not_found', unavailable);
    },
  },
  {
    id: 'content_policy_vocabulary',
    means: 'The provider refused the content.',
    decide: ({ status, features }) =>
      below500(status) ? when('content_policy', features.get('contentPolicy')) : undefined,
  },
  {
    id: 'permission_vocabulary',
    means: 'The key is valid but not allowed (access denied, region not supported).',
    decide: ({ features }) => when('permission', features.get('permission')),
  },
  {
    id: 'forbidden_status',
    means: '403: the key was read and refused.',
    decide: ({ status }) => (status === 403 ? verdict('permission', 'status 403') : undefined),
  },
  {
    id: 'unsupported_media',
    means: 'The provider cannot take this media type or format.',
    decide: ({ status, features }) =>
      status === undefined || status === 400 || status === 415 || status === 422
        ? when('unsupported_media', features.get('unsupportedMedia'))
        : undefined,
  },
  {
    id: 'warming_up',
    means: "The model is being loaded: busy, even on a 429 (not the account's rate).",
    decide: ({ features }) => when('overloaded', features.get('warmingUp')),
  },
  {
    id: 'capacity_vocabulary',
    means: 'The provider says it is busy (overloaded, capacity, unavailable), whatever the status.',
    decide: ({ features }) => when('overloaded', features.get('capacity')),
  },
  {
    id: 'throttle_vocabulary',
    means:
      'The words say the key is throttled (rate limit, too many requests, resource exhausted), below 500.',
    decide: ({ status, features }) =>
      status === undefined || status === 429 || status < 500
        ? when('rate_limit', features.get('throttle'))
        : undefined,
  },
  {
    id: 'throttle_status',
    means: '429 with no other signal: a rate limit.',
    decide: ({ status }) => (status === 429 ? verdict('rate_limit', 'status 429') : undefined),
  },
  {
    id: 'request_shape_on_server_error',
    means:
      'A 5xx whose words say the request itself is wrong (an unsupported parameter, a field that fails validation, a server flag the request needs): invalid_request, a retry sends the same request.',
    decide: ({ status, features }) =>
      status !== undefined && status >= 500
        ? when('invalid_request', features.get('requestShape'))
        : undefined,
  },
  {
    id: 'upstream_failure_on_client_status',
    means:
      "A gateway's 400 whose words say the provider behind it failed (no response from the provider, a relayed server error that invites a retry): server_error.",
    decide: ({ status, features }) =>
      status === 400 ? when('server_error', features.get('upstreamFailed')) : undefined,
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
    decide: ({ features }) => when('invalid_request', features.get('invalidRequest')),
  },
  {
    id: 'server_vocabulary',
    means: 'No status; the words say the provider failed on its side.',
    decide: ({ features }) => when('server_error', features.get('serverFault')),
  },
  {
    id: 'sdk_validation',
    means: 'The SDK rejected its own input or setup before sending.',
    decide: ({ metadata }) =>
      metadata.origin === 'validation'
        ? verdict('invalid_request', metadata.sdkErrorType ?? 'validation')
        : undefined,
  },
  {
    id: 'unrecognised',
    means: 'Nothing above matched: unknown, never retried.',
    decide: () => verdict('unknown'),
  },
];
