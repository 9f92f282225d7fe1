// The adapter and integration author's toolkit (`@faultline/render/toolkit`): presetting an
// adapter's wrapper and extractors, guarding a provider's stream with its one per-chunk hook,
// building an error from metadata, finding the report under an app's wrappers, recovering one from
// a durable engine (and waiting there for a quota's reset), and the retry loop with its hooks (for an integration that keeps state across
// calls between attempts). An application needs none of it; see `@faultline/render`.
// The types the toolkit's signatures name, so that an integration author can write them from here too.
export type { ClassifyErrorOptions } from './classify-error.ts';
export { errorFromMetadata, unrecoverableReport } from './classify-error.ts';
export type { FaultlineError, FaultlineErrorOptions, InferenceFamily } from './errors.ts';
export {
  type AdapterStreamGuard,
  type ChunkReading,
  controllerRelease,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
  type StreamResultMethod,
  toolCallCharacters,
} from './guard-stream.ts';
export { nearestFaultlineError } from './identity.ts';
export {
  checkOptionKeys,
  isSignalOption,
  nearestOption,
  type OptionKeys,
  unknownOption,
} from './invalid-option.ts';
export {
  CLASSIFY_ERROR_OPTION_KEYS,
  GUARD_STREAM_OPTION_KEYS,
  RETRY_OPTION_KEYS,
  WITH_CLASSIFIED_ERRORS_OPTION_KEYS,
} from './option-keys.ts';
export type { AttemptRecord } from './report.ts';
export type { ErrorReport } from './report-schema.ts';
export {
  type InvalidReportError,
  type ReportIssue,
  type SafeFromDictResult,
  safeFromDict,
} from './report-schema.ts';
export {
  maxResetWaitMs,
  RESET_WAIT_OPTION_KEYS,
  type ResetWaitOptions,
  resetWaitMs,
} from './reset-wait.ts';
export type { RetryEvent, RetryOptions } from './retry.ts';
export {
  abortableSleep,
  type RetryLoopOptions,
  type RetryPolicy,
  type RetryState,
  retryLoop,
  retryPolicy,
} from './retry.ts';
export { scrubIdentifiers, scrubSecrets } from './secrets.ts';
export type { AttemptContext, WithClassifiedErrorsOptions } from './with-classified-errors.ts';
export {
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  settledBy,
} from './with-classified-errors.ts';
