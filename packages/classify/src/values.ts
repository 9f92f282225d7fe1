// The closed sets of the taxonomy as plain arrays: the one definition the valibot picklists of schemas.ts are
// built from, usable where a list of values is wanted (a test's generator, a docs table).

/** The values of `ErrorCategory` (schemas.ts). */
export const ERROR_CATEGORIES = [
  'transient',
  'ambiguous',
  'configuration',
  'capacity',
  'content',
  'cancelled',
  'unknown',
] as const;

/** The values of `FailureReason` (schemas.ts). */
export const FAILURE_REASONS = [
  'rate_limit',
  'overloaded',
  'server_error',
  'timeout',
  'connection',
  'interrupted',
  'auth',
  'permission',
  'model_not_found',
  'not_found',
  'endpoint',
  'quota',
  'billing',
  'context_overflow',
  'content_policy',
  'invalid_request',
  'unsupported_media',
  'local_bug',
  'cancelled',
  'unknown',
] as const;

/** The values of `UserActionKind` (schemas.ts). */
export const USER_ACTION_KINDS = [
  'wait_and_retry',
  'check_credentials',
  'contact_support',
  'change_model',
  'check_configuration',
  'check_billing',
  'change_input',
  'none',
  'unknown',
] as const;

/** The values of `ErrorDomain` (schemas.ts). */
export const ERROR_DOMAINS = ['runtime', 'config', 'input'] as const;

/** The values of `NextStep` (schemas.ts). */
export const NEXT_STEPS = [
  'retry',
  'retry_if_idempotent',
  'compress',
  'change_input',
  'fallback',
  'fix_configuration',
  'report_bug',
  'stop',
] as const;

/** The values of `FailureOrigin` (schemas.ts). */
export const FAILURE_ORIGINS = [
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
] as const;

/** The values of `NetworkPhase` (schemas.ts). */
export const NETWORK_PHASES = [
  'dns',
  'connect',
  'before_response',
  'response_body',
  'stream',
  'unknown',
] as const;

/** The values of `SdkCondition` (schemas.ts). */
export const SDK_CONDITIONS = [
  'missing_credentials',
  'missing_region',
  'stream_incomplete',
  'unknown_model',
] as const;

/** The values of `RuleId` (schemas.ts). */
export const RULE_IDS = [
  'local_error',
  'caller_abort',
  'sdk_missing_credentials',
  'sdk_missing_region',
  'sdk_stream_incomplete',
  'sdk_unknown_model',
  'blocked_overflow',
  'blocked_answer',
  'overflow_vocabulary',
  'request_too_large',
  'network_phase',
  'deadline',
  'unreadable_body',
  'success_status',
  'no_provider_signal',
  'quota_id_long_window',
  'quota_id_short_window',
  'account_block',
  'payment_status',
  'long_window',
  'short_window',
  'payment_vocabulary',
  'allowance_vocabulary',
  'credential_rejected',
  'auth_status',
  'auth_vocabulary',
  'model_unavailable',
  'content_policy_vocabulary',
  'permission_vocabulary',
  'forbidden_status',
  'unsupported_media',
  'warming_up',
  'capacity_vocabulary',
  'throttle_vocabulary',
  'throttle_status',
  'request_shape_on_server_error',
  'upstream_failure_on_client_status',
  'status_default',
  'invalid_request_vocabulary',
  'server_vocabulary',
  'sdk_validation',
  'unrecognised',
  'long_wait',
  'assigned',
] as const;

/** The longest evidence a `decidedBy` carries. */
export const MAX_EVIDENCE_LENGTH = 120;
