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
