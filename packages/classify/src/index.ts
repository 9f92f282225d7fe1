export {
  type ClassificationOverride,
  type ClassificationOverrideFunction,
  type ClassifyOptions,
  classificationFor,
  classify,
  type Explanation,
  explainClassification,
  QUOTA_WAIT_THRESHOLD_SECONDS,
  type RuleOverrides,
  waitFromText,
} from './classify.ts';
export {
  attachRawBody,
  defineExtractor,
  type ExtractContext,
  type Extractor,
  type ExtractorCrash,
  type ExtractorCrashListener,
  type ExtractorDefinition,
  MAX_RAW_BODY_LENGTH,
  onExtractorCrash,
} from './extractor.ts';
export { FEATURE_NAMES, type FeatureName } from './features.ts';
export type { HttpFailure, HttpFailureReadOptions } from './http-failure.ts';
export {
  causeChain,
  constructorName,
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
export { RULES, type Rule } from './rules.ts';
export {
  Classification,
  DecidedBy,
  DeliveredOutput,
  ErrorCategory,
  ErrorDomain,
  FailureOrigin,
  FailureReason,
  MAX_EVIDENCE_LENGTH,
  NetworkPhase,
  NextStep,
  ProviderErrorMetadata,
  RecoveryHints,
  RuleId,
  SdkCondition,
  UserAction,
  UserActionKind,
} from './schemas.ts';
export { TAXONOMY, type TaxonomyRow } from './taxonomy.ts';
export {
  findNetworkCode,
  inspectTransportError,
  signalAbortOrigin,
  type TransportFailure,
} from './transport.ts';
