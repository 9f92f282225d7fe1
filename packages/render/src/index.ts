// What an application needs: the errors, their report, its one serialised form (toDict / fromDict),
// the views of it for each audience, and the wrappers. What only an adapter or integration author
// needs is in `@faultline/render/toolkit`.
export {
  type ClassifyErrorOptions,
  classifyError,
  type ReportSource,
  toErrorReport,
} from './classify-error.ts';
export type { Disclosure } from './disclosure.ts';
export {
  CompletionError,
  CompletionModelNotFoundError,
  EmbeddingError,
  EmbeddingModelNotFoundError,
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
  formatMarkdown,
  formatPanel,
  type PanelOptions,
  type ToolResult,
  type ToolResultOptions,
  toDict,
  toolResultFor,
  toWireError,
  type WireError,
} from './format.ts';
export {
  type ChunkReading,
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
  type ProblemDetails,
  type ProblemDetailsOptions,
  problemDetails,
} from './http.ts';
export { type AttemptRecord, ERROR_REPORT_SCHEMA_VERSION, outputDelivered } from './report.ts';
export {
  ErrorReport,
  fromDict,
  type InvalidReportError,
  type ReportIssue,
  ReportProviderMetadata,
  WaitKind,
} from './report-schema.ts';
export { ThrownValueError } from './thrown-value.ts';
export {
  type AttemptContext,
  type RetryEvent,
  type RetryOptions,
  type WithClassifiedErrorsOptions,
  withClassifiedErrors,
} from './with-classified-errors.ts';
