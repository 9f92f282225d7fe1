import { describe, expect, it } from 'vitest';
import { minimumTokenCount } from './index.ts';

describe('minimumTokenCount', () => {
  it('counts UTF-8 bytes over the densest tokenizer, well under what prose takes (about 4 characters a token)', () => {
    const prose = 'The quarterly figures were reviewed by the committee before the meeting. '.repeat(1000);
    const count = minimumTokenCount(prose);
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(prose.length / 6);
    // Parts add up as the whole does.
    expect(minimumTokenCount([prose, prose])).toBe(count * 2);
  });

  it('counts whitespace runs and runs of one repeated character once, as a tokenizer may read them', () => {
    expect(minimumTokenCount(' '.repeat(100_000))).toBe(0);
    expect(minimumTokenCount(`${'-'.repeat(80)}\n`.repeat(1000))).toBeLessThan(1000);
    const spaced = 'word   \n\n\t  '.repeat(800);
    expect(minimumTokenCount(spaced)).toBe(minimumTokenCount('word '.repeat(800)));
  });

  it('counts a character by its UTF-8 bytes: a CJK character three times an ASCII one, an emoji four', () => {
    expect(minimumTokenCount('人工'.repeat(400))).toBe(minimumTokenCount('ab'.repeat(400)) * 3);
    expect(minimumTokenCount('😀🙂'.repeat(40))).toBe(minimumTokenCount('ab'.repeat(160)));
  });

  it('is total: nothing that is not a string counts, and a lone surrogate is counted', () => {
    expect(minimumTokenCount('')).toBe(0);
    expect(minimumTokenCount([1, null, undefined, {}] as unknown as string[])).toBe(0);
    expect(minimumTokenCount(null as unknown as string)).toBe(0);
    expect(minimumTokenCount('\ud800x'.repeat(64))).toBeGreaterThan(0);
  });
});
