import { adapterOptionKeysSuite } from '@faultline/test-fixtures/option-keys-suite';
import { describe, expect, it } from 'vitest';
import {
  type GuardStreamOptions,
  guardAnthropicStream,
  guardStream,
  type WithClassifiedErrorsOptions,
  withClassifiedErrors,
} from './index.ts';

// The adapter's options types are held to the key tables its calls check, and refuse what they refuse.
adapterOptionKeysSuite<WithClassifiedErrorsOptions, GuardStreamOptions>(
  { withClassifiedErrors, guardStream },
  { refusesReadChunk: true },
);

describe('deprecated names', () => {
  it('keeps guardAnthropicStream as a deprecated alias of guardStream', () => {
    expect(guardAnthropicStream).toBe(guardStream);
  });
});
