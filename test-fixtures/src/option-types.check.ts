// Type-level checks of OptionTypesRefuse (compiled by the typecheck, never run): options types
// that refuse what the calls refuse need nothing; each that accepts a refused key fails.
import {
  adapterOptionKeysSuite,
  type OptionTablesCover,
  type OptionTypesRefuse,
} from './option-keys-suite.ts';

interface CallOptions {
  readonly retry?: false | { readonly maxAttempts?: number } | undefined;
}
interface GuardOptions {
  readonly idleTimeoutMs?: number | undefined;
}

export const refused: OptionTypesRefuse<CallOptions, GuardOptions> = {};
// @ts-expect-error: an index signature accepts maxRetries
export const anyCallKey: OptionTypesRefuse<CallOptions & Record<string, unknown>, GuardOptions> = {};
// @ts-expect-error: a retry type with an index signature accepts maxAtempts
export const anyRetryKey: OptionTypesRefuse<{ retry?: Record<string, number> }, GuardOptions> = {};
// @ts-expect-error: idleTimeout is not an option (idleTimeoutMs is)
export const idleTimeout: OptionTypesRefuse<CallOptions, GuardOptions & { idleTimeout?: number }> = {};
// @ts-expect-error: readChunk is the adapter's, not an option of its guard
export const readChunk: OptionTypesRefuse<CallOptions, GuardOptions & { readChunk?: () => void }> = {};

export const covered: OptionTablesCover<{ retry?: false }, { idleTimeoutMs?: number }> = {};
// @ts-expect-error: a call option render's withClassifiedErrors does not check
export const uncheckedCallKey: OptionTablesCover<{ retries?: number }, { idleTimeoutMs?: number }> = {};
// @ts-expect-error: readChunk is not in the guard's table (the adapter decides it)
export const uncheckedGuardKey: OptionTablesCover<{ retry?: false }, { readChunk?: () => void }> = {};

// The suite reads the options from the adapter's own functions (this file is compiled, never run).
declare const strict: {
  withClassifiedErrors(fn: () => Promise<string>, options?: CallOptions): Promise<unknown>;
  guardStream(stream: AsyncIterable<unknown>, options?: GuardOptions): unknown;
};
declare const loose: {
  withClassifiedErrors(fn: () => Promise<string>, options?: CallOptions): Promise<unknown>;
  guardStream(stream: AsyncIterable<unknown>, options?: GuardOptions & { idleTimeout?: number }): unknown;
};
export const checkStrict = () => adapterOptionKeysSuite(strict, { refusesReadChunk: true });
// @ts-expect-error: the guard's options accept idleTimeout
export const checkLoose = () => adapterOptionKeysSuite(loose, { refusesReadChunk: true });
