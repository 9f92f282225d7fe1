import type { Extractor } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import { type GuardedStream, type GuardStreamOptions, guardStream } from '@faultline/render';
import { checkOptionKeys, type StreamChunk } from '@faultline/render/toolkit';
import { detectLangChainBlockedAnswer, langChainExtractorsFor } from './classify-langchain-error.ts';
import { GUARD_LANGCHAIN_STREAM_OPTION_KEYS } from './option-keys.ts';

export interface GuardLangChainStreamOptions
  extends Omit<GuardStreamOptions<unknown>, 'extractors' | 'requireTerminal' | 'readChunk'> {
  /** The chat model's `_llmType()` or a faultline provider name: its SDK's extractor runs first. */
  readonly provider?: string | undefined;
  /** More extractors, run after the provider's. */
  readonly extractors?: readonly Extractor[] | undefined;
}

/**
 * Characters of output in an `AIMessageChunk`: its text (`content` is a string or a list of parts)
 * and its tool-call argument deltas (`tool_call_chunks`), output the consumer acts on.
 */
function chunkCharacters(chunk: unknown): number {
  let characters = 0;
  const calls = safeGet(chunk, 'tool_call_chunks');
  if (Array.isArray(calls)) {
    for (const call of calls.slice(0, 1000)) {
      const args = safeGet(call, 'args');
      if (typeof args === 'string') characters += args.length;
    }
  }
  const content = safeGet(chunk, 'content');
  if (typeof content === 'string') return characters + content.length;
  if (!Array.isArray(content)) return characters;
  for (const part of content.slice(0, 1000)) {
    const text = safeGet(part, 'text');
    if (typeof text === 'string') characters += text.length;
  }
  return characters;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return (
      value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
    );
  } catch {
    return false;
  }
}

/** The stream a promise resolves to, as one iterable: the promise's rejection is thrown on the first read. */
async function* opened<S extends AsyncIterable<unknown>>(
  source: PromiseLike<S>,
): AsyncGenerator<StreamChunk<S>> {
  yield* (await source) as AsyncIterable<StreamChunk<S>>;
}

/**
 * Guards the stream of a LangChain chat model's `.stream()` (or a chain's): chunks pass through
 * untouched; whatever the stream throws (the provider SDK's error, wrapped or not by LangChain), a
 * chunk whose `response_metadata` says the provider withheld the answer, and a stall longer than
 * `idleTimeoutMs` (default 60 s: several of the SDKs' timeouts do not cover a stream that stops
 * mid-answer) are thrown as a classified `FaultlineError` with the output `delivered` so far.
 *
 * Give it the promise `.stream()` returns (`guardLangChainStream(model.stream(input, { signal }))`):
 * `.stream()` itself rejects when the request fails before the first chunk (an HTTP 429, a
 * refused connection), and that rejection is then classified too, on the first read. Pass
 * `onAbandon: () => controller.abort()` with the signal given to `.stream()` so that a stalled
 * request is ended, not only left. Chat model streams have no common terminal chunk, so an
 * ending without one is not an error here.
 */
export function guardLangChainStream<S extends AsyncIterable<unknown>>(
  stream: S,
  options?: GuardLangChainStreamOptions,
): GuardedStream<S>;
export function guardLangChainStream<S extends AsyncIterable<unknown>>(
  stream: PromiseLike<S>,
  options?: GuardLangChainStreamOptions,
): AsyncIterable<StreamChunk<S>>;
export function guardLangChainStream<S extends AsyncIterable<unknown>>(
  stream: S | PromiseLike<S>,
  options: GuardLangChainStreamOptions = {},
): AsyncIterable<StreamChunk<S>> {
  checkOptionKeys('guardLangChainStream', options, GUARD_LANGCHAIN_STREAM_OPTION_KEYS);
  const { provider, extractors, ...rest } = options;
  const source: AsyncIterable<unknown> = isThenable(stream)
    ? opened(stream as PromiseLike<S>)
    : (stream as S);
  return guardStream(source, {
    ...rest,
    extractors: langChainExtractorsFor(provider, extractors),
    readChunk: (chunk) => ({
      failure: detectLangChainBlockedAnswer(chunk, provider),
      characters: chunkCharacters(chunk),
      terminal: false,
    }),
  }) as AsyncIterable<StreamChunk<S>>;
}
