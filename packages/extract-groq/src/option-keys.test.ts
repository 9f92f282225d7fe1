import {
  GUARD_STREAM_OPTION_KEYS,
  RETRY_OPTION_KEYS,
  WITH_CLASSIFIED_ERRORS_OPTION_KEYS,
} from '@faultline/render/toolkit';
import { describe, expect, it, vi } from 'vitest';
import {
  type GuardStreamOptions,
  guardGroqStream,
  guardStream,
  type WithClassifiedErrorsOptions,
  withClassifiedErrors,
} from './index.ts';

// Unknown option keys are a TypeError at the call, naming the key and the nearest valid one; every
// documented key is accepted. The key tables satisfy the options types, so an option added to a
// type and refused here fails the type check or this test.
const CALL_KEYS = WITH_CLASSIFIED_ERRORS_OPTION_KEYS satisfies Record<
  keyof WithClassifiedErrorsOptions,
  true
>;
const { readChunk: _readChunk, ...guardKeys } = GUARD_STREAM_OPTION_KEYS;
const GUARD_KEYS = guardKeys satisfies Record<keyof GuardStreamOptions, true>;

function everyKey(table: Readonly<Record<string, true>>): Record<string, undefined> {
  return Object.fromEntries(Object.keys(table).map((key) => [key, undefined]));
}

async function* chunks(): AsyncGenerator<unknown> {
  yield {};
}

describe('withClassifiedErrors options', () => {
  it('refuses an unknown key with a TypeError naming it and the nearest valid one, before fn runs', async () => {
    const fn = vi.fn(async () => 'answer');
    // @ts-expect-error: maxRetries is not an option (retry is)
    const error = await withClassifiedErrors(fn, { maxRetries: 3 }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe(
      'unknown option "maxRetries" for withClassifiedErrors; did you mean "retry"?',
    );
    // @ts-expect-error: maxAtempts is misspelt
    const nested = await withClassifiedErrors(fn, { retry: { maxAtempts: 3 } }).catch(
      (thrown: unknown) => thrown,
    );
    expect(nested).toBeInstanceOf(TypeError);
    expect((nested as TypeError).message).toContain('did you mean "maxAttempts"?');
    expect(fn).not.toHaveBeenCalled();
  });

  it('accepts every documented key', async () => {
    await expect(
      withClassifiedErrors(async () => 'answer', {
        ...everyKey(CALL_KEYS),
        retry: everyKey(RETRY_OPTION_KEYS),
      }),
    ).resolves.toBe('answer');
  });
});

describe('guardStream options', () => {
  it('refuses an unknown key with a TypeError naming it at the call', () => {
    // @ts-expect-error: idleTimeout is not an option (idleTimeoutMs is)
    const call = () => guardStream(chunks(), { idleTimeout: 5 });
    expect(call).toThrow(TypeError);
    expect(call).toThrow('unknown option "idleTimeout" for guardStream; did you mean "idleTimeoutMs"?');
  });

  it('accepts every documented key', () => {
    expect(() => guardStream(chunks(), everyKey(GUARD_KEYS))).not.toThrow();
  });

  it('keeps guardGroqStream as a deprecated alias of guardStream', () => {
    expect(guardGroqStream).toBe(guardStream);
  });
});
