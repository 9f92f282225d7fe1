import { adapterOptionKeysSuite } from '@faultline/test-fixtures/option-keys-suite';
import { describe, expect, it } from 'vitest';
import {
  type GuardStreamOptions,
  guardOpenAIStream,
  guardStream,
  type WithClassifiedErrorsOptions,
  withClassifiedErrors,
} from './index.ts';

// The adapter's options types are held to the key tables its calls check, and refuse what they refuse.
adapterOptionKeysSuite<WithClassifiedErrorsOptions, GuardStreamOptions>(
  { withClassifiedErrors, guardStream },
  { refusesReadChunk: false },
);

describe('deprecated names', () => {
  it('keeps guardOpenAIStream as a deprecated alias of guardStream', () => {
    expect(guardOpenAIStream).toBe(guardStream);
  });
});
