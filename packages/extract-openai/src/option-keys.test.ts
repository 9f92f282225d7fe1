import { adapterOptionKeysSuite } from '@faultline/test-fixtures/option-keys-suite';
import { describe, expect, it } from 'vitest';
import * as adapter from './index.ts';

// The options the adapter's calls take are held to the key tables they check, and refuse what they refuse.
adapterOptionKeysSuite(adapter, { refusesReadChunk: false });

describe('deprecated names', () => {
  it('keeps guardOpenAIStream as a deprecated alias of guardStream', () => {
    expect(adapter.guardOpenAIStream).toBe(adapter.guardStream);
  });
});
