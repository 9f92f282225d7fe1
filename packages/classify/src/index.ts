export {
  type ClassificationOverride,
  type ClassifyOptions,
  classificationFor,
  classify,
  QUOTA_WAIT_THRESHOLD_SECONDS,
  waitFromText,
} from './classify.ts';
export {
  attachRawBody,
  defineExtractor,
  type ExtractContext,
  type Extractor,
  type ExtractorDefinition,
  MAX_RAW_BODY_LENGTH,
} from './extractor.ts';
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
export {
  Classification,
  DeliveredOutput,
  ErrorCategory,
  ErrorDomain,
  FailureOrigin,
  FailureReason,
  NetworkPhase,
  NextStep,
  ProviderErrorMetadata,
  RecoveryHints,
  UserAction,
  UserActionKind,
} from './schemas.ts';
export { TAXONOMY, type TaxonomyRow } from './taxonomy.ts';
export { findNetworkCode, inspectTransportError, type TransportFailure } from './transport.ts';
