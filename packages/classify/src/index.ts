// What an application needs: the taxonomy, its schemas and types, and classify(). What only an
// adapter author needs (defineExtractor and the total readers) is in `@faultline/classify/toolkit`.
export {
  type ClassificationOverride,
  type ClassificationOverrideFunction,
  type ClassifyOptions,
  classificationFor,
  classify,
  type Explanation,
  explainClassification,
  type RuleOverrides,
} from './classify.ts';
export {
  type ExtractContext,
  type Extractor,
  type ExtractorCrash,
  type ExtractorCrashListener,
  onExtractorCrash,
  type ResultInspector,
} from './extractor.ts';
export { FEATURE_NAMES, type FeatureName } from './features.ts';
export type { HttpFailure, HttpFailureReader, HttpFailureReadOptions } from './http-failure.ts';
export { RateLimitBudget, type RateLimitReader, RateLimitWindow } from './rate-limit.ts';
export {
  Classification,
  DecidedBy,
  DeliveredOutput,
  ErrorCategory,
  ErrorDomain,
  FailureOrigin,
  FailureReason,
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
