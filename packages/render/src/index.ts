export {
  builtInExtractors,
  localBugExtractor,
  type RenderExtractContext,
  streamParseExtractor,
  transportExtractor,
  zodExtractor,
} from './built-in-extractors.ts';
export {
  asReport,
  type ClassifyErrorOptions,
  classifyError,
  errorFromMetadata,
  isCallerAbort,
  type ReportSource,
  toErrorReport,
  unrecoverableReport,
} from './classify-error.ts';
export { type Disclosure, safeMessageFor } from './disclosure.ts';
export {
  CompletionError,
  CompletionModelNotFoundError,
  EmbeddingError,
  EmbeddingModelNotFoundError,
  errorClassFor,
  FaultlineContextError,
  type FaultlineContextErrorOptions,
  FaultlineError,
  type FaultlineErrorOptions,
  ImageGenerationError,
  ImageGenerationModelNotFoundError,
  type InferenceFamily,
  RerankError,
  RerankModelNotFoundError,
  SpeechError,
  SpeechModelNotFoundError,
  TranscriptionError,
  TranscriptionModelNotFoundError,
} from './errors.ts';
export {
  type DisclosureOptions,
  exitCodeFor,
  formatForLlm,
  formatJson,
  formatMarkdown,
  formatPanel,
  type PanelOptions,
  type ToolResult,
  type ToolResultOptions,
  toolResultFor,
  toWireError,
  type WireError,
} from './format.ts';
export {
  type ChunkFacts,
  type ChunkScanCallbacks,
  chunkScan,
  controllerRelease,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
  type StreamResultMethod,
} from './guard-stream.ts';
export {
  type HttpErrorResponse,
  httpResponseFor,
  httpStatusFor,
  PROBLEM_TYPE_PREFIX,
  type ProblemDetails,
  type ProblemDetailsOptions,
  problemDetails,
} from './http.ts';
export { FAULTLINE_ERROR_MARKER, MAX_CAUSE_DEPTH, nearestFaultlineError } from './identity.ts';
export {
  type AttemptRecord,
  ERROR_REPORT_SCHEMA_VERSION,
  ErrorReport,
  fromDict,
  ReportProviderMetadata,
  safeFromDict,
  toDict,
  WaitKind,
} from './report.ts';
export { MAX_MESSAGE_LENGTH, scrubIdentifiers, scrubSecrets } from './secrets.ts';
export { ThrownValueError } from './thrown-value.ts';
export {
  type AttemptContext,
  type BoundWithClassifiedErrors,
  bindWithClassifiedErrors,
  type RetryEvent,
  type RetryOptions,
  type WithClassifiedErrorsOptions,
  withClassifiedErrors,
} from './with-classified-errors.ts';
