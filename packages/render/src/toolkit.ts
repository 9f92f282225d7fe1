// The adapter and integration author's toolkit (`@faultline/render/toolkit`): presetting an
// adapter's extractors, building an error from metadata, releasing a stalled stream, finding the
// report under an app's wrappers and recovering one from a durable engine. An application needs
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
export { checkOptionKeys, nearestOption, type OptionKeys, unknownOption } from './invalid-option.ts';
export {
  CLASSIFY_ERROR_OPTION_KEYS,
  GUARD_STREAM_OPTION_KEYS,
  RETRY_OPTION_KEYS,
  WITH_CLASSIFIED_ERRORS_OPTION_KEYS,
} from './option-keys.ts';
export { safeFromDict } from './report-schema.ts';
export { scrubIdentifiers, scrubSecrets } from './secrets.ts';
export { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from './with-classified-errors.ts';
