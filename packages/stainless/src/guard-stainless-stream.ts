import type { Extractor } from '@faultline/classify';
import {
  controllerRelease,
  type GuardedStream,
  type GuardStreamOptions,
  guardStream,
  type StreamChunk,
} from '@faultline/render/toolkit';

/**
 * render's `guardStream` over a stream of a Stainless-generated SDK, with what every SDK of the
 * family needs: the adapter's extractor after any the caller gave, and, when the guard gives up on
 * the stream (a stall past `idleTimeoutMs`, the caller's abort), the raw `Stream`'s own
 * AbortController aborted. Its iterator is an async generator whose `return()` waits behind a
 * stalled read, and the SDK's `timeout` does not cover stream reads, so without this the request
 * would stay open. A helper stream with its own `abort()` (`messages.stream()`,
 * `chat.completions.stream()`) already aborts on `return()`. The idle timer rejects the pending
 * read itself, whatever the fetch does with the abort. `options` are the adapter's defaults merged
 * with the caller's.
 */
export function guardStainlessStream<S extends AsyncIterable<unknown>>(
  stream: S,
  extractor: Extractor,
  options: GuardStreamOptions<StreamChunk<S>>,
): GuardedStream<S> {
  const release = controllerRelease(stream);
  const { onAbandon, extractors } = options;
  return guardStream(stream, {
    ...options,
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
  });
}
