import type { Extractor } from '@faultline/classify';
import {
  controllerAbortEndsRead,
  controllerRelease,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render/adapter';

/**
 * render's `guardStream` over a stream of a Stainless-generated SDK, with what every SDK of the
 * family needs: the adapter's extractor after any the caller gave, and, when the guard gives up on
 * the stream (a stall past `idleTimeoutMs`, the caller's abort), the raw `Stream`'s own
 * AbortController aborted. Its iterator is an async generator whose `return()` waits behind a
 * stalled read, and the SDK's `timeout` does not cover stream reads, so without this the request
 * would stay open. A helper stream with its own `abort()` (`messages.stream()`,
 * `chat.completions.stream()`) already aborts on `return()`. When the fetch that made the request
 * listens to that controller's signal (the default fetch of every major does; see
 * `controllerAbortEndsRead`), the abort ends the stalled read itself, so the guard stops a stall
 * that way (`abandonEndsPull`) and a pull costs one `.then`; a custom fetch that drops the signal
 * keeps the guard's own promise per pull, which the idle timer rejects, and so does the caller's
 * `abandonEndsPull: false` (for a fetch that listens to the signal without handing it on).
 * `options` are the adapter's defaults merged with the caller's.
 */
export function guardStainlessStream<S extends AsyncIterable<unknown>>(
  stream: S,
  extractor: Extractor,
  options: GuardStreamOptions<StreamChunk<S>>,
): GuardedStream<S> {
  const release = controllerRelease(stream);
  const { onAbandon, extractors } = options;
  // Object.assign rather than `{ ...options, onAbandon, extractors }`: on Node 20 an object literal
  // that begins with a spread and adds properties after it costs 1–2 µs (measured), most of a
  // provider guard's set-up; this costs about 0.2 µs.
  return guardStream(
    stream,
    Object.assign({}, options, {
      onAbandon:
        release === undefined
          ? onAbandon
          : onAbandon === undefined
            ? release
            : () => {
                release();
                onAbandon();
              },
      extractors: extractors === undefined ? [extractor] : [...extractors, extractor],
      // Aborting the controller ends a stalled read when the request's fetch listens to its signal:
      // the idle timer then aborts instead of racing a promise of its own (see abandonEndsPull).
      // The caller's own answer wins, false too: a listener is evidence, not proof, that an abort
      // reaches the read (a custom fetch may listen and not hand the signal on).
      abandonEndsPull: options.abandonEndsPull ?? (release !== undefined && controllerAbortEndsRead(stream)),
    }),
  );
}
