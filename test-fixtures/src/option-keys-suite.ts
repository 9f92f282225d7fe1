import {
  GUARD_STREAM_OPTION_KEYS,
  RETRY_OPTION_KEYS,
  WITH_CLASSIFIED_ERRORS_OPTION_KEYS,
} from '@faultline/render/toolkit';
import { describe, expect, it, vi } from 'vitest';

/** A stream guard's entry point and the key table its options type satisfies. */
export interface OptionKeysSuiteGuard {
  readonly guardStream: (stream: AsyncIterable<unknown>, options: object) => unknown;
  /** Every key of the adapter's `GuardStreamOptions`. */
  readonly guardKeys: Readonly<Record<string, true>>;
  /** The guard decides its chunks itself: a `readChunk` option is refused at the call. */
  readonly guardRefusesReadChunk: boolean;
}

/**
 * An adapter's option-taking entry points and the key tables their options types satisfy. The
 * guard's fields go together: an adapter without a stream guard yet (a scaffolded one; providers.json
 * has no `streamGuard`) gives none of them.
 */
export type OptionKeysSuiteOptions = {
  readonly withClassifiedErrors: (fn: () => Promise<string>, options: object) => Promise<unknown>;
  /** Every key of the adapter's `WithClassifiedErrorsOptions` and of `RetryOptions`. */
  readonly callKeys: Readonly<Record<string, true>>;
  readonly retryKeys: Readonly<Record<string, true>>;
} & (OptionKeysSuiteGuard | { readonly guardStream?: undefined });

function everyKey(table: Readonly<Record<string, true>>): Record<string, undefined> {
  return Object.fromEntries(Object.keys(table).map((key) => [key, undefined]));
}

async function* chunks(): AsyncGenerator<unknown> {
  yield {};
}

/**
 * The same checks for every adapter: an unknown option key is a TypeError at the call, naming the
 * key and the nearest valid one, and every documented key is accepted. Each adapter's own test
 * holds its key tables to its options types (`satisfies`), so an option added to a type and
 * refused here fails the type check or this suite.
 */
export function optionKeysSuite(options: OptionKeysSuiteOptions): void {
  describe('withClassifiedErrors options', () => {
    it('refuses an unknown key with a TypeError naming it and the nearest valid one, before fn runs', async () => {
      const fn = vi.fn(async () => 'answer');
      const error = await options
        .withClassifiedErrors(fn, { maxRetries: 3 })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as TypeError).message).toBe(
        'unknown option "maxRetries" for withClassifiedErrors; did you mean "retry"?',
      );
      const nested = await options
        .withClassifiedErrors(fn, { retry: { maxAtempts: 3 } })
        .catch((thrown: unknown) => thrown);
      expect(nested).toBeInstanceOf(TypeError);
      expect((nested as TypeError).message).toContain('did you mean "maxAttempts"?');
      expect(fn).not.toHaveBeenCalled();
    });

    it('accepts every documented key', async () => {
      await expect(
        options.withClassifiedErrors(async () => 'answer', {
          ...everyKey(options.callKeys),
          retry: everyKey(options.retryKeys),
        }),
      ).resolves.toBe('answer');
    });
  });

  if (options.guardStream === undefined) return;
  const guard: OptionKeysSuiteGuard = options;
  describe('guardStream options', () => {
    it('refuses an unknown key with a TypeError naming it at the call', () => {
      const call = () => guard.guardStream(chunks(), { idleTimeout: 5 });
      expect(call).toThrow(TypeError);
      expect(call).toThrow('unknown option "idleTimeout" for guardStream; did you mean "idleTimeoutMs"?');
    });

    it('accepts every documented key', () => {
      expect(() => guard.guardStream(chunks(), everyKey(guard.guardKeys))).not.toThrow();
    });

    it.runIf(guard.guardRefusesReadChunk)('refuses readChunk, which the adapter decides', () => {
      const call = () => guard.guardStream(chunks(), { readChunk: () => undefined });
      expect(call).toThrow(/^unknown option "readChunk" for guardStream; /);
    });
  });
}

/** True when `Options` refuses the key `K` (no such key, no index signature). */
type Refuses<Options, K extends string> = K extends keyof Options ? false : true;

/**
 * What an adapter's options types must refuse, as the calls do: `maxRetries` (the option is
 * `retry`), a misspelt retry key (`maxAtempts`), `idleTimeout` (it is `idleTimeoutMs`) and
 * `readChunk` (the adapter's own hook). Resolves to `unknown` when they do; otherwise to a
 * required field of type `never` whose name says which the type accepts, so that the call of
 * {@link adapterOptionKeysSuite} fails the type check.
 */
export type OptionTypesRefuse<CallOptions, GuardOptions> = (Refuses<CallOptions, 'maxRetries'> extends true
  ? unknown
  : { readonly 'WithClassifiedErrorsOptions accepts maxRetries': never }) &
  (Refuses<Extract<CallOptions[keyof CallOptions & 'retry'], object>, 'maxAtempts'> extends true
    ? unknown
    : { readonly 'RetryOptions accepts maxAtempts': never }) &
  (Refuses<GuardOptions, 'idleTimeout'> extends true
    ? unknown
    : { readonly 'GuardStreamOptions accepts idleTimeout': never }) &
  (Refuses<GuardOptions, 'readChunk'> extends true
    ? unknown
    : { readonly 'GuardStreamOptions accepts readChunk': never });

/**
 * Every key of the adapter's options types is in the table its call checks (render's; the guard's
 * without `readChunk`, which the adapter decides): `unknown` when so, else a required field of
 * type `never` that names the type, so that the call of {@link adapterOptionKeysSuite} fails.
 */
export type OptionTablesCover<CallOptions, GuardOptions> = ([
  Exclude<keyof CallOptions, keyof typeof WITH_CLASSIFIED_ERRORS_OPTION_KEYS>,
] extends [never]
  ? unknown
  : { readonly 'WithClassifiedErrorsOptions has a key its call refuses': never }) &
  ([Exclude<keyof GuardOptions, Exclude<keyof typeof GUARD_STREAM_OPTION_KEYS, 'readChunk'>>] extends [never]
    ? unknown
    : { readonly 'GuardStreamOptions has a key its call refuses': never });

/** What an adapter's module offers the option-keys suite: its wrapper and its stream guard. */
export interface AdapterWithGuard {
  // `never`: whatever options type the adapter's functions take (the suite reads it from them).
  readonly withClassifiedErrors: (fn: () => Promise<string>, options?: never) => Promise<unknown>;
  readonly guardStream: (stream: AsyncIterable<unknown>, options?: never) => unknown;
}

/** The options a function takes as its second parameter, `undefined` aside. */
type OptionsOf<F> = F extends (first: never, options?: infer O) => unknown ? NonNullable<O> : never;

/**
 * The option-keys suite of an adapter with a stream guard (pass its module: `import * as adapter
 * from './index.ts'`), with the options its `withClassifiedErrors` and `guardStream` take held to
 * render's key tables at compile time: every key is in the table the call checks
 * ({@link OptionTablesCover}), and the types refuse what the calls refuse ({@link OptionTypesRefuse}).
 * An option added to a type and refused at the call fails the type check or the suite.
 */
export function adapterOptionKeysSuite<Adapter extends AdapterWithGuard>(
  adapter: Adapter,
  guard: { readonly refusesReadChunk: boolean } & OptionTypesRefuse<
    OptionsOf<Adapter['withClassifiedErrors']>,
    OptionsOf<Adapter['guardStream']>
  > &
    OptionTablesCover<OptionsOf<Adapter['withClassifiedErrors']>, OptionsOf<Adapter['guardStream']>>,
): void {
  const { readChunk: _adapterDecides, ...guardKeys } = GUARD_STREAM_OPTION_KEYS;
  optionKeysSuite({
    withClassifiedErrors: (fn, options) => adapter.withClassifiedErrors(fn, options as never),
    guardStream: (stream, options) => adapter.guardStream(stream, options as never),
    callKeys: WITH_CLASSIFIED_ERRORS_OPTION_KEYS,
    retryKeys: RETRY_OPTION_KEYS,
    guardKeys,
    guardRefusesReadChunk: guard.refusesReadChunk,
  });
}
