import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { realTexts } from './test-support.ts';
import { LONG_WINDOW, SHORT_WINDOW, type Vocabulary } from './vocabulary.ts';

const _root = fileURLToPath(new URL('../../..', import.meta.url));

/** The corpus and every llm-mock scenario, lower-cased as classify reads them. */
const REAL_TEXTS: readonly string[] = [
  ...new Set(realTexts({ bodies: true }).map((text) => text.toLowerCase())),
];

interface Rewrite {
  readonly name: string;
  /** The vocabulary as it was: its entries, in order. */
  readonly before: readonly RegExp[];
  /** The vocabulary now. */
  readonly after: Vocabulary;
  /** Pieces fuzzed text is made of (besides strings the patterns themselves generate). */
  readonly pieces: readonly string[];
}

const REWRITES: readonly Rewrite[] = [
  {
    // i17-regex12: "per" with and without a count, one entry each (each with telling literals).
    name: 'shortWindow: per [count] second/minute split in two',
    before: [
      /per[ _-]?(?:\d+ ?)?(?:second|sec|minute|min)\b/,
      /\((?:rpm|tpm|rps|tps|ipm)\)|\b(?:rpm|tpm|rps)\b(?: limit)?/,
    ],
    after: SHORT_WINDOW,
    pieces: [
      'per',
      'per ',
      'per-',
      'per_',
      ' ',
      '1',
      '30',
      '5 ',
      'sec',
      'second',
      'min',
      'minute',
      's',
      'x',
      '(rpm)',
      'tpm',
    ],
  },
  {
    name: 'longWindow: per [count] day/week/month/year split in two',
    before: [
      /per[ _-]?(?:\d+ ?)?(?:day|week|month|year)\b|perday|permonth/,
      /\b(?:daily|weekly|monthly|yearly|annual)\b/,
      /\((?:rpd|tpd)\)|\b(?:rpd|tpd)\b/,
      /regain access (?:on|at)|resets? (?:at|on)\b|reset (?:at|on) \d|until \d{4}-\d{2}-\d{2}/,
      // Added after the rewrite (OpenRouter's limit_rpd), unchanged by it.
      /limit_(?:rpd|tpd)\b/,
    ],
    after: LONG_WINDOW,
    pieces: [
      'per',
      'per ',
      'per-',
      'per_',
      ' ',
      '1',
      '30',
      '7 ',
      'day',
      'days',
      'week',
      'month',
      'year',
      'daily',
      'tpd',
    ],
  },
];

/** The leftmost match of `entries`' alternation from `from`: its position and text, or null. */
function matchOf(alternation: RegExp, text: string, from: number): [number, string] | null {
  alternation.lastIndex = from;
  const match = alternation.exec(text);
  alternation.lastIndex = 0;
  return match === null ? null : [match.index, match[0]];
}

const alternationOf = (entries: readonly RegExp[]): RegExp =>
  new RegExp(entries.map((entry) => `(?:${entry.source})`).join('|'), 'g');

describe('rewritten vocabulary entries match as the entries they replace', () => {
  for (const rewrite of REWRITES) {
    it(rewrite.name, () => {
      const before = alternationOf(rewrite.before);
      const after = alternationOf(rewrite.after.patterns());
      const expectSame = (text: string, from: number): void => {
        const expected = matchOf(before, text, from);
        const found = matchOf(after, text, from);
        if (JSON.stringify(found) !== JSON.stringify(expected)) {
          expect({ found, from }, JSON.stringify(text.slice(0, 300))).toEqual({ found: expected, from });
        }
        // What classify reads: `find` gives the matched text (the rest of the vocabulary unchanged).
        expect(rewrite.after.find(text, from)).toBe(expected?.[1]);
      };
      for (const text of REAL_TEXTS) {
        expectSame(text, 0);
        const first = matchOf(before, text, 0);
        // From just past the first match's start: the next match, as a later search sees it.
        if (first !== null) expectSame(text, first[0] + 1);
      }
      const generated = fc.oneof(
        // fast-check generates no `\b`: dropped here (the pieces around a generated string test it).
        ...[...rewrite.before, ...rewrite.after.patterns()].map((pattern) =>
          fc.stringMatching(new RegExp(pattern.source.replace(/\\b/g, ''))),
        ),
      );
      const piece = fc.oneof(
        generated,
        fc.constantFrom(...rewrite.pieces),
        fc.string({ maxLength: 3 }),
        fc.constantFrom('\n', '\t', '\u00a0', 'é'),
      );
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 10 }), fc.nat(40), (parts, from) => {
          const text = parts.join('').toLowerCase();
          expectSame(text, 0);
          expectSame(text, Math.min(from, text.length));
        }),
        { numRuns: 4000 },
      );
    });
  }
});
