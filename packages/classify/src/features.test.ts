/**
 * Hand-written readers in features.ts against the regexes they replace (fuzzed, fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountEnd, amountOf, limitNumberAt } from './features.ts';

/** The first two numbers as `requestOverLimit` read them before: two execs of the global regex. */
function referenceNumbers(words: string): [string, string] | undefined {
  const pattern = /(?:limit|requested):? ~?([\d,.]+)/g;
  const first = pattern.exec(words);
  const second = first === null ? null : pattern.exec(words);
  return first === null || second === null ? undefined : [first[1] ?? '', second[1] ?? ''];
}

function handNumbers(words: string): [string, string] | undefined {
  const first = limitNumberAt(words, 0);
  if (first === -1) return undefined;
  const firstEnd = amountEnd(words, first);
  const second = limitNumberAt(words, firstEnd);
  if (second === -1) return undefined;
  return [words.slice(first, firstEnd), words.slice(second, amountEnd(words, second))];
}

describe('limitNumberAt', () => {
  it('finds the numbers `/(?:limit|requested):? ~?([\\d,.]+)/g` finds, exec after exec', () => {
    const piece = fc.constantFrom(
      ...[
        'limit',
        'requested',
        'limit:',
        'requested:',
        'limitlimit ',
        'requestedlimit',
        ' ',
        ':',
        '~',
        ': ~',
      ],
      ...['12,000', '0', '1.5', ',', '.', '..', '9', 'used 4437, ', ', ', 'x', 'limit ~', 'requested ~,'],
    );
    const words = fc.oneof(
      fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
      fc.string(),
      fc.constantFrom(
        'limit 12000, used 4437, requested 9854',
        'limit 6000, requested 12328',
        'limit: ~7000, used 0, requested: ~12,903',
        'limit 100000, used 97050, requested 3619',
      ),
    );
    fc.assert(
      fc.property(words, (text) => {
        expect(handNumbers(text)).toEqual(referenceNumbers(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('amountOf', () => {
  it("reads a run of [\\d,.] as Number of it without its commas (requestOverLimit's reading before)", () => {
    const reference = (run: string): number => Number(run.replaceAll(',', ''));
    const run = fc.oneof(
      fc.stringMatching(/^[\d,.]{1,24}$/),
      fc.stringMatching(/^\d{1,3}(?:,\d{3}){0,6}(?:\.\d{1,20})?$/),
      fc.double({ min: 0, max: 1e12, noNaN: true }).map((n) => n.toFixed(6)),
      fc.constantFrom(
        '',
        ',',
        '.',
        '..',
        ',.',
        '.,',
        '1.',
        '.5',
        '0',
        '00012',
        '1,2.3,4',
        '9007199254740993',
        '0.1',
        '1.2.3',
      ),
    );
    fc.assert(
      fc.property(run, fc.string({ maxLength: 4 }), (amount, around) => {
        // Read in place, inside other text, as requestOverLimit reads it.
        const words = `${around}${amount}${around}`;
        expect(amountOf(words, around.length, around.length + amount.length)).toBe(reference(amount));
      }),
      { numRuns: 10000 },
    );
  });
});
