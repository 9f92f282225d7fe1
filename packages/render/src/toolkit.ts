// The adapter and integration author's toolkit (`@faultline/render/toolkit`): presetting an
// adapter's extractors, building an error from metadata, releasing a stalled stream, finding the
// report under an app's wrappers, recovering one from a durable engine, and the retry loop with its
// hooks (for an integration that keeps state across calls between attempts). An application needs
// none of it; see `@faultline/render`.
export { errorFromMetadata, unrecoverableReport } from './classify-error.ts';
export {
  type ChunkFacts,
  type ChunkScanCallbacks,
  chunkScan,
  controllerAbortEndsRead,
  controllerRelease,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
} from './guard-stream.ts';
export { nearestFaultlineError } from './identity.ts';
export { safeFromDict } from './report-schema.ts';
export {
  abortableSleep,
  type RetryLoopOptions,
  type RetryPolicy,
  type RetryState,
  retryLoop,
  retryPolicy,
} from './retry.ts';
export { scrubIdentifiers, scrubSecrets } from './secrets.ts';
export { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from './with-classified-errors.ts';
