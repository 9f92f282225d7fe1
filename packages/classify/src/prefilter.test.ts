/**
 * The literal prefilter (prefilter.ts) gives the same answers as running every vocabulary's regex,
 * which is what classify did before it (issue 17):
 * - the table of required literals is what the patterns require (re-derived here);
 * - soundness: wherever a vocabulary's regex matches a text, the scanner says it may, over every
 *   corpus and scenario string and fuzzed text built from the patterns themselves;
 * - the whole decision: `explainClassification` (classification, rule, evidence and every feature
 *   read with its evidence) is identical with the prefilter and with it turned off (the scan
 *   answering "every list may match", i.e. every regex runs, the reference path);
 * - `secondsOf` equals its former regex-table implementation.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  candidateEntries,
  FEATURE_NAMES,
  Features,
  INDEX_OF,
  literalPrefilter,
  searchStart,
  secondsOf,
  withoutUrls,
} from './features.ts';
import { classify, explainClassification, type ProviderErrorMetadata } from './index.ts';
import { DEPTH, LiteralScanner } from './prefilter.ts';
import {
  entryLiterals,
  entryOffsetBounds,
  literalOffsetBound,
  literalsTableSource,
  requiredLiterals,
  windowOf,
} from './required-literals.ts';
import { realTexts } from './test-support.ts';
import * as vocabularies from './vocabulary.ts';
import { LITERAL_OFFSETS, REQUIRED_LITERALS } from './vocabulary-literals.ts';

const ALL: readonly vocabularies.Vocabulary[] = Object.values(vocabularies).filter(
  (value): value is vocabularies.Vocabulary => value instanceof vocabularies.Vocabulary,
);
const TEXT_FEATURES = FEATURE_NAMES.filter((name) => name !== 'quotaIdWindow');
const byName = new Map(ALL.map((vocabulary) => [vocabulary.name, vocabulary]));
const _root = fileURLToPath(new URL('../../..', import.meta.url));

/** The corpus (corpus/cases) and every llm-mock scenario: real provider wordings, as strings. */
const REAL_TEXTS: readonly string[] = realTexts({ bodies: true });

/**
 * The reference: each vocabulary's full alternation (`find`, what classify ran before). Where it
 * matches, the scan must leave at least one entry as a candidate, and the alternation of the
 * candidates must give the very same match.
 */
function expectSound(text: string): void {
  const lower = text.toLowerCase();
  const filter = literalPrefilter();
  const { scanner, firstEntry } = filter;
  const candidates = new Int32Array(scanner.words);
  filter.positions = scanner.scan(lower, candidates);
  for (const name of TEXT_FEATURES) {
    const vocabulary = byName.get(name);
    if (vocabulary === undefined) throw new Error(`no vocabulary named ${name}`);
    const reference = vocabulary.find(lower);
    const among = candidateEntries(
      candidates,
      firstEntry[INDEX_OF[name]] ?? -1,
      vocabulary.patterns().length,
    );
    const first = firstEntry[INDEX_OF[name]] ?? -1;
    // The search starts where classify starts it: past where no candidate's match can start.
    const found =
      among === 0 ? undefined : vocabulary.findAmong(lower, among, searchStart(filter, first, among));
    if (found !== reference) {
      expect({ name, found }, `${name} on ${JSON.stringify(lower.slice(0, 200))}`).toEqual({
        name,
        found: reference,
      });
    }
  }
}

/** Metadata the rule table reads in many ways: each status and origin that changes which rules run. */
function metadataFor(message: string, variant: number): ProviderErrorMetadata {
  const statuses = [undefined, 400, 402, 403, 404, 413, 415, 422, 429, 500, 503, 529];
  const origins = ['http', 'stream_event', 'blocked_response', 'validation', 'unknown'] as const;
  const status = statuses[variant % statuses.length];
  const origin = origins[Math.floor(variant / statuses.length) % origins.length] ?? 'http';
  const metadata: ProviderErrorMetadata = { provider: 'test', origin, message };
  if (status !== undefined) metadata.statusCode = status;
  return metadata;
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** `explainClassification` with the prefilter and without it (every vocabulary's regex runs). */
function expectSameExplanation(metadata: ProviderErrorMetadata): void {
  const withPrefilter = explainClassification(metadata);
  // classify itself (which keeps no read order) decides as explain does.
  expect(classify(metadata)).toEqual(withPrefilter.classification);
  // The reference: every list may match, and no position is known (each regex searches from 0).
  const spy = vi.spyOn(LiteralScanner.prototype, 'scan').mockImplementation((_, into) => {
    into.fill(-1);
    return false;
  });
  const reference = explainClassification(metadata);
  spy.mockRestore();
  expect(withPrefilter).toEqual(reference);
}

describe('the required literals', () => {
  it('vocabulary-literals.ts is what the patterns require (UPDATE_LITERALS=1 rewrites it)', () => {
    const source = literalsTableSource(ALL);
    if (process.env.UPDATE_LITERALS === '1') {
      writeFileSync(fileURLToPath(new URL('./vocabulary-literals.ts', import.meta.url)), source);
    }
    for (const vocabulary of ALL) {
      expect(
        REQUIRED_LITERALS[vocabulary.name]?.map((literals) => literals ?? undefined),
        vocabulary.name,
      ).toEqual(entryLiterals(vocabulary));
    }
    expect(Object.keys(REQUIRED_LITERALS).sort()).toEqual(ALL.map((vocabulary) => vocabulary.name).sort());
    for (const vocabulary of ALL) {
      expect(
        LITERAL_OFFSETS[vocabulary.name]?.map((bound) => bound ?? undefined),
        vocabulary.name,
      ).toEqual(entryOffsetBounds(vocabulary));
    }
    expect(Object.keys(LITERAL_OFFSETS).sort()).toEqual(Object.keys(REQUIRED_LITERALS).sort());
  });

  it('are each a part of a literal the pattern requires, at most DEPTH long (the scanner keeps it whole)', () => {
    for (const vocabulary of ALL) {
      const entries = entryLiterals(vocabulary);
      vocabulary.patterns().forEach((pattern, index) => {
        const required = requiredLiterals(pattern);
        const kept = entries[index];
        expect(kept === undefined, `${vocabulary.name}[${index}]`).toBe(required === undefined);
        if (required === undefined || kept === undefined) return;
        // Each required literal contains a kept one: a text with the literal has the kept part too.
        for (const literal of required)
          expect(
            kept.some((part) => literal.includes(part)),
            literal,
          ).toBe(true);
        for (const part of kept) expect(part.length).toBeLessThanOrEqual(DEPTH);
      });
    }
    // Not the first ten characters, which every "organization" has: the rarest ten (`_`, `z`).
    expect(windowOf('organization_restricted')).toBe('nization_r');
    expect(windowOf('per day')).toBe('per day');
    // A window with a whole word in it (`put token `), not one every "input tokens" holds.
    expect(windowOf('input token count')).toBe('put token ');
    expect(windowOf('subscription does not')).toBe('ion does n');
  });

  it('bound how far into a match its first literal lies (no match starts earlier than that before it)', () => {
    expect(literalOffsetBound(/abc/, ['abc'])).toBe(0);
    expect(literalOffsetBound(/x.{0,40}abc/, ['abc'])).toBe(41);
    expect(
      literalOffsetBound(/(?:your|current) (?:\w+ )?plan\b|upgrade (?:your )?plan/, [
        'current ',
        'upgrade plan',
        'your ',
      ]),
    ).toBe(8);
    // Unbounded before the literal, a literal that a match may lack, syntax not followed: no bound.
    expect(literalOffsetBound(/\w+abc/, ['abc'])).toBeUndefined();
    expect(literalOffsetBound(/(?:abc)?d/, ['abc'])).toBeUndefined();
    expect(literalOffsetBound(/(a)\1abc/, ['abc'])).toBeUndefined();
    expect(literalOffsetBound(/abc/i, ['abc'])).toBeUndefined();
    // Every string fast-check generates from an entry has one of its literals within its bound.
    for (const vocabulary of ALL) {
      const literals = entryLiterals(vocabulary);
      const bounds = entryOffsetBounds(vocabulary);
      vocabulary.patterns().forEach((pattern, index) => {
        const bound = bounds[index];
        const own = literals[index];
        if (bound === undefined || own === undefined) return;
        const generating = new RegExp(pattern.source.replace(/\\b/g, '').replace(/\(\?<?[=!][^)]*\)/g, ''));
        fc.assert(
          fc.property(fc.stringMatching(generating), (text) => {
            // The generating copy drops `\b` and lookarounds: the entry itself may not match.
            const match = pattern.exec(text)?.[0];
            if (match === undefined) return;
            const first = Math.min(
              ...own.map((literal) => {
                const at = match.indexOf(literal);
                return at === -1 ? Number.POSITIVE_INFINITY : at;
              }),
            );
            expect(first, `${vocabulary.name}[${index}] on ${JSON.stringify(match)}`).toBeLessThanOrEqual(
              bound,
            );
          }),
          { numRuns: 100 },
        );
      });
    }
  });

  it('are read from the pattern syntax soundly (what the reader claims, the regex requires)', () => {
    expect(requiredLiterals(/context[ _-]?(?:length|window)/)).toEqual(
      new Set(['', ' ', '_', '-'].flatMap((gap) => [`context${gap}length`, `context${gap}window`])),
    );
    expect(requiredLiterals(/consumer .{0,120} has been suspended/)).toEqual(
      new Set([' has been suspended']),
    );
    // Nothing known before or after an unbounded piece: `a.*b` requires neither `ab` nor more.
    expect(requiredLiterals(/c.*d/)).toEqual(new Set(['c']));
    // A literal made only of function words tells little: the words after `per` are required instead.
    expect(requiredLiterals(/per\d*(?:day|week)/)).toEqual(new Set(['day', 'week']));
    expect(requiredLiterals(/(?:your|current) plans?\b/)).toEqual(new Set(['current plan', 'your plan']));
    expect(requiredLiterals(/(?:your|current) \w+ plan/)).toEqual(new Set([' plan']));
    expect(requiredLiterals(/x?/)).toBeUndefined();
    expect(requiredLiterals(/\d+/)).toBeUndefined();
    // `\d` is its ten digits and `x+` is `x` then `x*`: a count after a word joins it.
    expect(requiredLiterals(/per \d+ day/)).toEqual(
      new Set([...'0123456789'].map((digit) => `per ${digit}`)),
    );
    expect(requiredLiterals(/abc/i)).toBeUndefined();
    // A lookaround matches no character: it is skipped, never required.
    expect(requiredLiterals(/caps?\b(?! per)/)).toEqual(new Set(['cap']));
    // Every string a small pattern matches contains one of its literals.
    for (const pattern of [
      /(?:ab|cd)e?f{2,3}/,
      /(?:x-)?api[ _-]?key/,
      /a(?:b|c)*d/,
      /[ab]c|d[^e]f/,
      /per[ _-]?\d+ ?(?:sec|min)/,
      /x\d+?\d+y/,
    ]) {
      const literals = requiredLiterals(pattern);
      fc.assert(
        fc.property(fc.stringMatching(pattern), (text) => {
          expect(literals === undefined || [...literals].some((literal) => text.includes(literal))).toBe(
            true,
          );
        }),
        { numRuns: 200 },
      );
    }
  });

  it('the scanner finds a literal wherever it is, overlapping or not', () => {
    const lists = [['he', 'she', 'hers'], ['his'], ['rate limit'], ['limit']];
    const own = new LiteralScanner(lists);
    fc.assert(
      fc.property(
        // Short texts take the one-lane loop, long ones the four lanes (a literal across a lane's edge).
        fc.array(fc.constantFrom('h', 'e', 's', 'i', 'r', 'x', 'rate limit', ' ', 'limi', 't', 'é'), {
          maxLength: 200,
        }),
        (parts) => {
          const text = parts.join('');
          let expected = 0;
          lists.forEach((list, index) => {
            if (list.some((literal) => text.includes(literal))) expected |= 1 << index;
          });
          const found = new Int32Array(own.words);
          const positions = own.scan(text, found);
          expect(found[0]).toBe(expected);
          // Positions are kept in characters for an ASCII text only (a non-ASCII one is read as UTF-8).
          expect(positions).toBe(!text.includes('é'));
          if (!positions) return;
          // Each found list's first position: where its earliest-ending literal occurrence ends.
          lists.forEach((list, index) => {
            const ends = list
              .filter((literal) => text.includes(literal))
              .map((literal) => text.indexOf(literal) + literal.length - 1);
            if (ends.length > 0) expect(own.firstAt[index], `${index} in ${text}`).toBe(Math.min(...ends));
          });
        },
      ),
      { numRuns: 2000 },
    );
    // A list with no requirement is always a candidate; non-ASCII text is read, never misread.
    const withAlways = new LiteralScanner([undefined, ['é'], ['ab']]);
    const found = new Int32Array(1);
    withAlways.scan('', found);
    expect(found[0]).toBe(0b011);
    withAlways.scan('xäbab', found);
    expect(found[0]).toBe(0b111);
    // More lists than one word holds: list 40 is bit 8 of the second word.
    const many = new LiteralScanner(Array.from({ length: 41 }, (_, index) => [`w${index}w`]));
    const words = new Int32Array(many.words);
    many.scan('.. w40w w3w ..', words);
    expect([...words]).toEqual([1 << 3, 1 << 8]);
    // The bytes a scan reads are reused and grown: a longer text, then non-ASCII ones (UTF-8, two
    // or three bytes a character, a lone surrogate three), then an ASCII one again, each read whole
    // and alone (nothing of the one before shows through); positions in characters for ASCII only.
    const tail = new LiteralScanner([['ab'], ['zz']]);
    const two = new Int32Array(1);
    const long = `${'x'.repeat(5000)}ab`;
    expect(tail.scan(long, two)).toBe(true);
    expect([two[0], tail.firstAt[0]]).toEqual([0b01, 5001]);
    expect(tail.scan('é'.repeat(3000), two)).toBe(false);
    expect(two[0]).toBe(0);
    expect(tail.scan(`\u2019${'y'.repeat(2000)}zz\ud800`, two)).toBe(false);
    expect(two[0]).toBe(0b10);
    expect(tail.scan(`${'\u{1f600}'.repeat(1500)}a${'\u2019'.repeat(1500)}b`, two)).toBe(false);
    expect(two[0]).toBe(0);
    expect(tail.scan('y'.repeat(100), two)).toBe(true);
    expect(two[0]).toBe(0);
  });

  it('grows its table as scans reach more states, and answers the same after', () => {
    // Hundreds of literals over a small alphabet: the scans below reach far more than the rows the
    // table starts with, so it grows (twice or more) between and within scans.
    const letters = (from: string[], minLength: number, maxLength: number) =>
      fc
        .array(fc.constantFrom(...from), { minLength, maxLength, size: 'max' })
        .map((parts) => parts.join(''));
    const literal = letters(['a', 'b', 'c', ' '], 3, 8);
    fc.assert(
      fc.property(
        fc.array(fc.array(literal, { minLength: 1, maxLength: 4, size: 'max' }), {
          minLength: 60,
          maxLength: 90,
          size: 'max',
        }),
        fc.array(letters(['a', 'b', 'c', 'é', ' '], 0, 600), { minLength: 1, maxLength: 8 }),
        (lists, texts) => {
          const own = new LiteralScanner(lists);
          const found = new Int32Array(own.words);
          for (const text of texts) {
            own.scan(text, found);
            lists.forEach((list, index) => {
              const expected = list.some((entry) => text.includes(entry)) ? 1 : 0;
              expect(((found[index >> 5] as number) >>> (index & 31)) & 1).toBe(expected);
            });
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a process reads its first Features without the prefilter, and builds it for the next', async () => {
    // A fresh copy of the modules: nothing has classified in it yet.
    vi.resetModules();
    const fresh = await import('./classify.ts');
    const { LiteralScanner: FreshScanner } = await import('./prefilter.ts');
    const built = vi.spyOn(FreshScanner.prototype, 'scan');
    const metadata: ProviderErrorMetadata = {
      provider: 'openai',
      origin: 'http',
      statusCode: 429,
      message: 'Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000. Please try again in 20s.',
    };
    const first = fresh.explainClassification(metadata);
    expect(built).not.toHaveBeenCalled();
    const second = fresh.explainClassification(metadata);
    expect(built).toHaveBeenCalledTimes(1);
    expect(second).toEqual(first);
    expect(first).toEqual(explainClassification(metadata));
    expect(first.classification.reason).toBe('rate_limit');
  });

  it('keeps the real vocabularies under its table bound, and past it runs every list (sound)', () => {
    // The real literals fit (a DEPTH or vocabulary that outgrew the Uint16 table would filter nothing).
    const { scanner } = literalPrefilter();
    expect(scanner.states).toBeGreaterThan(1000);
    // 70,000 distinct 5-letter literals over 26 letters: more states than a Uint16 entry has rows for.
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const huge = Array.from({ length: 70_000 }, (_, index) => [
      Array.from({ length: 5 }, (_, at) => letters[Math.floor(index / 26 ** at) % 26]).join(''),
    ]);
    const tooBig = new LiteralScanner(huge);
    expect(tooBig.states).toBe(1);
    const found = new Int32Array(tooBig.words);
    tooBig.scan('nothing here', found);
    const set = huge.filter((_, index) => (((found[index >> 5] as number) >>> (index & 31)) & 1) === 1);
    expect(set.length).toBe(huge.length);
  });
});

// Phrases each vocabulary entry matches (generated from the entry itself: fast-check's
// generator knows no `\b` or lookaround, so those are left out of the generating copy), spliced
// into real wordings and noise, with case changes and word boundaries around them.
const phrase = fc.oneof(
  ...ALL.flatMap((vocabulary) =>
    vocabulary.patterns().map((pattern) =>
      fc.stringMatching(new RegExp(pattern.source.replace(/\\b/g, '').replace(/\(\?<?[=!][^)]*\)/g, '')), {
        size: 'small',
      }),
    ),
  ),
);
const noise = fc.oneof(
  fc.constantFrom(' ', '', '_', '-', '"', ': ', '. ', '(', ')', '\n', 'é', '`'),
  fc.string({ maxLength: 8 }),
  fc.constantFrom(...REAL_TEXTS.filter((text) => text.length < 300)),
);
const spliced = fc
  .array(
    fc.oneof(
      phrase,
      noise,
      fc.constantFrom(
        ...Object.values(REQUIRED_LITERALS).flatMap((entries) => entries.flatMap((list) => list ?? [])),
      ),
    ),
    {
      maxLength: 8,
    },
  )
  .chain((parts) =>
    fc
      .tuple(fc.constant(parts.join('')), fc.boolean())
      .map(([text, upper]) => (upper ? text.toUpperCase() : text)),
  );

describe('the prefilter never hides a match', () => {
  it(`over every corpus and scenario string (${REAL_TEXTS.length})`, () => {
    expect(REAL_TEXTS.length).toBeGreaterThan(500);
    for (const text of REAL_TEXTS) expectSound(text);
  });

  it('over fuzzed text built from the patterns, the literals, real wordings and noise', () => {
    fc.assert(
      fc.property(spliced, (text) => {
        expectSound(text);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('classify decides the same with the prefilter as without it', () => {
  it('on every corpus and scenario string, under every status and origin that changes the rules read', () => {
    let compared = 0;
    REAL_TEXTS.forEach((text, index) => {
      // Each text under three of the 60 status × origin variants, rotating.
      for (const offset of [0, 20, 40]) {
        expectSameExplanation(metadataFor(text, index + offset));
        compared += 1;
      }
    });
    expect(compared).toBeGreaterThan(1500);
  });

  it('on fuzzed metadata', () => {
    fc.assert(
      fc.property(
        spliced,
        fc.nat(59),
        fc.option(fc.constantFrom('rate_limit_exceeded', 'insufficient_quota', 'RESOURCE_EXHAUSTED', 'x')),
        fc.option(fc.array(fc.constantFrom('PerMinute', 'per_day', 'FreeTier', 'requests_per_second'))),
        (message, variant, providerCode, quotaIds) => {
          const metadata = metadataFor(message, variant);
          if (providerCode !== null) metadata.providerCode = providerCode;
          if (quotaIds !== null) metadata.quotaIds = quotaIds;
          expectSameExplanation(metadata);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('keeps each Features to its own text when two read in turn (the scan buffer is shared)', () => {
    const rate = new Features({
      provider: 'test',
      origin: 'http',
      statusCode: 429,
      message: 'Rate limit reached',
    });
    const busy = new Features({
      provider: 'test',
      origin: 'http',
      statusCode: 503,
      message: 'The model is overloaded',
    });
    expect(rate.get(INDEX_OF.overflow)).toBeUndefined();
    expect(busy.get(INDEX_OF.capacity)).toBe('overloaded');
    expect(rate.get(INDEX_OF.throttle)).toBe('rate limit');
    expect(rate.get(INDEX_OF.capacity)).toBeUndefined();
    expect(busy.get(INDEX_OF.throttle)).toBeUndefined();
  });

  it('findAmong: a subset of entries gives the leftmost match of its own alternation, and past the bound of compiled subsets the full one', () => {
    const entries = () => [/z+/, /y{2}/, /x|w/, /v\d/, /uu?/, /t/, /s/, /r/, /q/, /p/];
    const text = 'a ww yyy zz';
    // Any subset of the first five entries: the leftmost match among just those entries (31 subsets,
    // under the bound).
    const some = new vocabularies.Vocabulary('some', entries);
    for (let among = 1; among < 32; among += 1) {
      const chosen = some.patterns().filter((_, index) => ((among >>> index) & 1) === 1);
      const reference = new RegExp(chosen.map((entry) => `(?:${entry.source})`).join('|')).exec(text)?.[0];
      expect(some.findAmong(text, among)).toBe(reference);
    }
    // Entries 0, 1 and 2 match somewhere in the text; every subset holding them (128, past the
    // bound of 32 compiled) gives the full alternation's match, as the prefilter relies on.
    const all = new vocabularies.Vocabulary('all', entries);
    const full = all.find(text);
    expect(full).toBe('w');
    for (let rest = 0; rest < 128; rest += 1) {
      expect(all.findAmong(text, 0b111 | (rest << 3))).toBe(full);
    }
  });

  it('reads every feature by its own index', () => {
    expect(Object.keys(INDEX_OF)).toEqual([...FEATURE_NAMES]);
    FEATURE_NAMES.forEach((name, index) => {
      expect(INDEX_OF[name]).toBe(index);
    });
  });
});

/** `secondsOf` as it was: a table of unit patterns, matchAll. */
function referenceSecondsOf(words: string): number | undefined {
  const units: ReadonlyArray<readonly [RegExp, number]> = [
    [/^(?:milliseconds?|ms)$/, 0.001],
    [/^(?:hours?|hrs?|h)$/, 3600],
    [/^(?:minutes?|mins?|m)$/, 60],
    [/^(?:seconds?|secs?|s)$/, 1],
  ];
  let total = 0;
  let found = false;
  for (const match of words.toLowerCase().matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)) {
    const row = units.find(([pattern]) => pattern.test(match[2] ?? ''));
    if (row === undefined) continue;
    total += Number(match[1]) * row[1];
    found = true;
  }
  return found && Number.isFinite(total) ? total : undefined;
}

describe('secondsOf', () => {
  it('equals its former implementation', () => {
    const unit = fc.constantFrom(
      ...['ms', 'millisecond', 'milliseconds', 'h', 'hr', 'hrs', 'hour', 'hours', 'm', 'min', 'mins'],
      ...['minute', 'minutes', 's', 'sec', 'secs', 'second', 'seconds', 'S', 'Ms', 'days', 'x', 'msec'],
      // Upper case, and characters past ASCII that lower-case to ASCII letters (Kelvin sign, İ).
      ...['SECONDS', 'Min', 'mİn', '\u212As', 'm\u00e9', 'h\u00a0'],
    );
    const amount = fc.oneof(
      fc.nat(100000).map(String),
      fc.double({ min: 0, max: 1e4, noNaN: true }).map((n) => n.toFixed(3)),
      // Long and short digit runs, with many decimals: the hand-read amount against Number's.
      fc.stringMatching(/^\d{1,24}(?:\.\d{1,24})?$/),
    );
    const words = fc
      .array(
        fc.tuple(amount, fc.constantFrom('', ' ', '  '), unit, fc.constantFrom(' ', ', ', ' and ', '')),
        {
          maxLength: 5,
        },
      )
      .map((parts) => `try again in ${parts.map((part) => part.join('')).join('')}`);
    fc.assert(
      fc.property(fc.oneof(words, fc.string()), (text) => {
        expect(secondsOf(text.toLowerCase())).toBe(referenceSecondsOf(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('withoutUrls', () => {
  it('equals the regex replace it stands for', () => {
    const reference = (text: string) => text.replace(/\b(?:https?|wss?):\/\/\S+/gi, ' ');
    const piece = fc.oneof(
      fc.constantFrom(
        'http',
        'https',
        'HTTPS',
        'hTtP',
        'ws',
        'wss',
        'WsS',
        'xhttp',
        '_ws',
        'ftp',
        'htt',
        'ss',
      ),
      fc.constantFrom(
        '://',
        ':/',
        '//',
        ':',
        '/',
        'a',
        '.',
        '-',
        '_',
        ' ',
        '\n',
        '\t',
        '\u00a0',
        '\u2028',
        '\ufeff',
        'é',
        'ı',
        'ſ',
      ),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 16 }), (parts) => {
        const text = parts.join('');
        expect(withoutUrls(text)).toBe(reference(text));
      }),
      { numRuns: 5000 },
    );
    for (const text of REAL_TEXTS) expect(withoutUrls(text)).toBe(reference(text));
  });
});
