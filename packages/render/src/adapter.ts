// What a provider adapter (`@faultline/extract-*`, `@faultline/stainless`) loads at run time
// (`@faultline/render/adapter`): the bound wrapper, the stream guard and its per-chunk plumbing.
// This entry's module graph holds no schema library: `@faultline/render` exports the zod schema of
// a report (`ErrorReport`, `fromDict`) and `@faultline/render/toolkit` the bridges' `safeFromDict`,
// and importing zod costs about 60 ms, more than the rest of an adapter together (issue 17).
// Every name here is also exported by `@faultline/render` or `@faultline/render/toolkit`.
export {
  type ChunkFacts,
  type ChunkScanCallbacks,
  chunkScan,
  controllerAbortEndsRead,
  controllerRelease,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
  type StreamResultMethod,
} from './guard-stream.ts';
export { checkOptionKeys, type OptionKeys } from './invalid-option.ts';
export { GUARD_STREAM_OPTION_KEYS, WITH_CLASSIFIED_ERRORS_OPTION_KEYS } from './option-keys.ts';
export { type BoundWithClassifiedErrors, bindWithClassifiedErrors } from './with-classified-errors.ts';
