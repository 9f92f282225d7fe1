// The adapter author's toolkit (`@faultline/classify/toolkit`): defining a total extractor and the
// total readers it is written with. An application needs none of it; see `@faultline/classify`.
// The types the toolkit's signatures name, so that an adapter author can write them from here too.
export type {
  ClassificationOverride,
  ClassificationOverrideFunction,
  ClassifyOptions,
  RuleOverrides,
} from './classify.ts';
export {
  CLASSIFY_OPTION_KEYS,
  classificationFor,
  classify,
  QUOTA_WAIT_THRESHOLD_SECONDS,
  waitFromText,
} from './classify.ts';
export type { Extractor } from './extractor.ts';
export {
  attachRawBody,
  attachRawJsonBody,
  copyRawBody,
  defineExtractor,
  type ExtractContext,
  type ExtractorDefinition,
  MAX_RAW_BODY_LENGTH,
} from './extractor.ts';
export type { FeatureName, Features, QuotaIdWindow, TextFeature } from './features.ts';
export { FEATURE_NAMES } from './features.ts';
export { HTTP_FAILURE_READ_OPTION_KEYS } from './http-failure.ts';
export {
  checkOptionKeys,
  invalidOption,
  nearestOption,
  type OptionKeys,
  unknownOption,
} from './invalid-option.ts';
export type { RateLimitBudget } from './rate-limit.ts';
export {
  parseResetSeconds,
  type RateLimitHeaderNames,
  type RateLimitWindowHeaders,
  readRateLimitBudget,
  spentWaitSeconds,
  X_RATELIMIT_HEADERS,
} from './rate-limit.ts';
export {
  causeChain,
  constructorName,
  describeTextBody,
  MAX_PARSE_LENGTH,
  messageOf,
  parseJsonSafely,
  prototypeNames,
  readHeader,
  safeGet,
  safeHasOwn,
  safeNumber,
  safePath,
  safeStatus,
  safeString,
} from './read.ts';
export {
  MAX_RETRY_AFTER_SECONDS,
  parseDurationSeconds,
  parseRetryAfterValue,
  retryAfterFromHeaders,
} from './retry-after.ts';
export type { RuleInput, Verdict } from './rules.ts';
export { RULES, type Rule } from './rules.ts';
export type {
  Classification,
  DecidedBy,
  ErrorCategory,
  ErrorDomain,
  FailureOrigin,
  FailureReason,
  NetworkPhase,
  NextStep,
  ProviderErrorMetadata,
  RecoveryHints,
  RuleId,
  UserActionKind,
} from './schemas.ts';
export { lenientField, parseClassification } from './schemas.ts';
export type { TaxonomyRow } from './taxonomy.ts';
export { TAXONOMY } from './taxonomy.ts';
export {
  findNetworkCode,
  inspectTransportError,
  signalAbortOrigin,
  type TransportFailure,
} from './transport.ts';
export {
  ERROR_CATEGORIES,
  ERROR_DOMAINS,
  FAILURE_ORIGINS,
  FAILURE_REASONS,
  MAX_EVIDENCE_LENGTH,
  NETWORK_PHASES,
  NEXT_STEPS,
  RULE_IDS,
  SDK_CONDITIONS,
  USER_ACTION_KINDS,
} from './values.ts';
