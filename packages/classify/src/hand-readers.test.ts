import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountEnd, Features, INDEX_OF, limitNumberAt, secondsOf } from './features.ts';
import { classify, explainClassification, type ProviderErrorMetadata } from './index.ts';
import { realTexts } from './test-support.ts';
import { FAILURE_ORIGINS, SDK_CONDITIONS } from './values.ts';

// ---- a5ac4fb's secondsOf, verbatim (features.ts), with what it read ----

const UNIT_SECONDS: ReadonlyMap<string, number> = new Map([
  ['millisecond', 0.001],
  ['milliseconds', 0.001],
  ['ms', 0.001],
  ['hour', 3600],
  ['hours', 3600],
  ['hr', 3600],
  ['hrs', 3600],
  ['h', 3600],
  ['minute', 60],
  ['minutes', 60],
  ['min', 60],
  ['mins', 60],
  ['m', 60],
  ['second', 1],
  ['seconds', 1],
  ['sec', 1],
  ['secs', 1],
  ['s', 1],
]);

function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isLowerLetter = (code: number): boolean => code >= 0x61 && code <= 0x7a;

function oracleSecondsOf(words: string): number | undefined {
  let total = 0;
  let found = false;
  const lower = words.toLowerCase();
  const length = lower.length;
  let at = 0;
  while (at < length) {
    if (!isDigit(lower.charCodeAt(at))) {
      at += 1;
      continue;
    }
    const start = at;
    while (at < length && isDigit(lower.charCodeAt(at))) at += 1;
    if (at + 1 < length && lower.charCodeAt(at) === 0x2e && isDigit(lower.charCodeAt(at + 1))) {
      at += 1;
      while (at < length && isDigit(lower.charCodeAt(at))) at += 1;
    }
    const end = at;
    let unitStart = at;
    while (unitStart < length && isSpace(lower.charCodeAt(unitStart))) unitStart += 1;
    let unitEnd = unitStart;
    while (unitEnd < length && isLowerLetter(lower.charCodeAt(unitEnd))) unitEnd += 1;
    if (unitEnd === unitStart) continue;
    at = unitEnd;
    const perUnit = UNIT_SECONDS.get(lower.slice(unitStart, unitEnd));
    if (perUnit === undefined) continue;
    total += Number(lower.slice(start, end)) * perUnit;
    found = true;
  }
  return found && Number.isFinite(total) ? total : undefined;
}

// ---- a5ac4fb's requestOverLimit on the limitNumbers evidence ----

function oracleOverLimit(words: string | undefined): string | undefined {
  if (words === undefined) return undefined;
  const pattern = /(?:limit|requested):? ~?([\d,.]+)/g;
  const first = pattern.exec(words);
  const second = first === null ? null : pattern.exec(words);
  if (first === null || second === null) return undefined;
  const limit = Number((first[1] ?? '').replaceAll(',', ''));
  const requested = Number((second[1] ?? '').replaceAll(',', ''));
  return requested > limit && limit >= 0 ? words : undefined;
}

/** A string of `length` decimal digits. */
const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });

/**
 * Amounts as `\d+(?:\.\d+)?` reads them, around where the hand-read path ends: up to 24
 * characters, the dot anywhere, runs of zeros and nines, and 2^53's neighbours.
 */
const amount = fc.oneof(
  fc
    .tuple(digits(1, 18), fc.option(digits(1, 18), { nil: undefined }))
    .map(([whole, fraction]) => (fraction === undefined ? whole : `${whole}.${fraction}`)),
  // Exactly 15 to 17 characters: the hand-read bound is 16.
  fc.tuple(fc.integer({ min: 15, max: 17 }), fc.nat(), digits(17, 17)).map(([length, dot, run]) => {
    const at = 1 + (dot % (length - 2));
    return dot % 3 === 0 ? run.slice(0, length) : `${run.slice(0, at)}.${run.slice(at + 1, length)}`;
  }),
  fc.constantFrom(
    ...['9007199254740991', '9007199254740992', '9007199254740993', '9007199254740994', '9007199254740995'],
    ...['9999999999999999', '10000000000000000', '18014398509481985', '4503599627370497'],
    ...['900719925474099.3', '900719925474099.5', '90071992547409.95', '0.9007199254740993'],
    ...['0000000000000001', '000000000000000.5', '007', '0.1', '0.2', '0.30000000000000004'],
    ...['0.1000000000000000055511151231257827', '0.333333333333333', '0.3333333333333333'],
    ...['123456789012345.6', '1234567890123456.7', '1.7976931348623157', '2.2250738585072014'],
    ...['5.', '.5', '1e5', '1,000', '１２', '٣', '1.2.3', '00.00', '0.0000000000000001'],
  ),
  fc.stringMatching(/^0{0,8}[0-9]{0,20}(?:\.[0-9]{0,20}0{0,8})?$/),
);
const unit = fc.constantFrom(
  ...['ms', 'milliseconds', 'h', 'hrs', 'hour', 'm', 'min', 'minutes', 's', 'sec', 'seconds'],
  ...['S', 'SECONDS', 'Hr', 'x', 'e5s', 'days', '\u212As', 'mİn'],
);

describe('secondsOf against a5ac4fb', () => {
  it('reads every amount as Number did, alone and in words', () => {
    fc.assert(
      fc.property(amount, unit, fc.constantFrom('', ' ', '\u00a0', '\u3000'), (value, word, space) => {
        const text = `${value}${space}${word}`;
        expect(secondsOf(text.toLowerCase()), text).toBe(oracleSecondsOf(text));
      }),
      { numRuns: 20_000 },
    );
    const words = fc
      .array(fc.tuple(amount, fc.constantFrom('', ' '), unit, fc.constantFrom(' ', ', ', ' and ', '')), {
        maxLength: 6,
      })
      .map((parts) => `retry in ${parts.map((part) => part.join('')).join('')}`);
    fc.assert(
      fc.property(fc.oneof(words, fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' })), (text) => {
        expect(secondsOf(text.toLowerCase()), text).toBe(oracleSecondsOf(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('reads every 16-digit amount about 2^53, with a dot anywhere or none, as Number did (the fast path and its edge)', () => {
    // Every whole number within 2,000 of 2^53, and each with a dot at every place.
    for (let offset = -2000; offset <= 2000; offset += 1) {
      const whole = (2n ** 53n + BigInt(offset)).toString();
      for (const text of [
        whole,
        ...Array.from({ length: 15 }, (_, at) => `${whole.slice(0, at + 1)}.${whole.slice(at + 1)}`),
      ]) {
        expect(secondsOf(`${text}s`.toLowerCase()), text).toBe(oracleSecondsOf(`${text}s`));
      }
    }
  });
});

describe('secondsOf on lower-cased text', () => {
  it('reads any piece of a lower-cased text as it reads that piece lower-cased again (callers pass pieces of lower-cased text)', () => {
    const words = fc
      .array(
        fc.tuple(
          amount,
          fc.constantFrom('', ' ', '\u00a0'),
          unit,
          fc.constantFrom(' ', ', ', ' and ', 'Σ ', ''),
        ),
        {
          maxLength: 6,
        },
      )
      .map((parts) => `Retry in ${parts.map((part) => part.join('')).join('')}`);
    const text = fc.oneof(words, fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (whole, from, to) => {
        const lower = whole.toLowerCase();
        const start = from % (lower.length + 1);
        const piece = lower.slice(start, start + (to % (lower.length - start + 1)));
        expect(secondsOf(piece), piece).toBe(secondsOf(piece.toLowerCase()));
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('requestOverLimit against a5ac4fb', () => {
  const number = fc.oneof(
    amount,
    fc.constantFrom('12,000', '1,2,3', ',5', '.', '..', '1.5.5', '-3', '~5', '１２', '٣', '1\u00a02'),
  );
  const keyword = fc.constantFrom(
    ...['limit ', 'limit: ', 'limit ~', 'limit: ~', 'requested ', 'requested: ~', 'limit  ', 'limit~ '],
    ...[
      'limit\t',
      'limit:: ',
      'limit : ',
      'LIMIT ',
      'Requested ',
      'requested~',
      'limitlimit ',
      'requestedlimit ',
    ],
    ...['limit ~~', 'requested :', 'limit:~', 'limit\u00a0', 'requested -', 'limit: -'],
  );
  const filler = fc.constantFrom(
    ' ',
    ', ',
    ', used 4, ',
    ':',
    '~',
    'x',
    'tokens per min (TPM): ',
    '\u00a0',
    '-',
  );
  const pieces = fc.array(fc.oneof(keyword, number, number, filler), { maxLength: 14 });
  // Shaped as the vocabulary reads them: limit N, then requested N within 80 characters.
  const shaped = fc
    .tuple(
      fc.constantFrom('limit ', 'limit: ', 'limit ~', 'limit: ~', 'LIMIT ', 'Limit: ~'),
      number,
      fc.array(fc.oneof(filler, number, keyword), { maxLength: 2 }),
      fc.constantFrom(' requested ', ', requested: ~', ' Requested ', ' requested ~', ', requested '),
      number,
    )
    .map(([first, limit, between, second, requested]) => [first, limit, ...between, second, requested]);
  it('limitNumberAt and amountEnd find every number the regex finds, exec after exec', () => {
    fc.assert(
      fc.property(pieces, (parts) => {
        const words = parts.join('');
        const pattern = /(?:limit|requested):? ~?([\d,.]+)/g;
        const expected: string[] = [];
        for (let match = pattern.exec(words); match !== null; match = pattern.exec(words)) {
          expected.push(match[1] ?? '');
        }
        const found: string[] = [];
        for (let at = limitNumberAt(words, 0); at !== -1; ) {
          const end = amountEnd(words, at);
          found.push(words.slice(at, end));
          at = limitNumberAt(words, end);
        }
        expect(found, words).toEqual(expected);
      }),
      { numRuns: 10_000 },
    );
  });

  it('gives what two execs of the regex gave, on the limitNumbers evidence of fuzzed messages', () => {
    let read = 0;
    fc.assert(
      // Most shaped as the vocabulary reads them (limit N, then requested N within 80 characters).
      fc.property(
        fc.array(fc.oneof({ arbitrary: pieces, weight: 1 }, { arbitrary: shaped, weight: 3 }), {
          maxLength: 3,
        }),
        fc.constantFrom(413, 429),
        (parts, status) => {
          const metadata: ProviderErrorMetadata = {
            provider: 'test',
            origin: 'http',
            statusCode: status,
            message: parts.flat().join(''),
          };
          const features = new Features(metadata, false);
          const words = features.get(INDEX_OF.limitNumbers);
          if (words !== undefined) read += 1;
          expect(features.requestOverLimit(), metadata.message).toBe(oracleOverLimit(words));
        },
      ),
      { numRuns: 8_000 },
    );
    expect(read).toBeGreaterThan(2_000);
  });
});

describe('answersOnlyWith against explain (every rule called)', () => {
  it('classify decides as explainClassification on every origin, with and without an SDK condition', () => {
    const texts = realTexts({ bodies: false }).filter((text) => text.length > 3);
    const statuses = [undefined, 400, 403, 404, 413, 429, 500, 503];
    const conditions = [undefined, ...SDK_CONDITIONS];
    let compared = 0;
    const expectSame = (metadata: ProviderErrorMetadata): void => {
      expect(classify(metadata), JSON.stringify(metadata).slice(0, 300)).toEqual(
        explainClassification(metadata).classification,
      );
      compared += 1;
    };
    texts.forEach((message, index) => {
      // Each text under every origin, the status and condition rotating.
      FAILURE_ORIGINS.forEach((origin, turn) => {
        const metadata = { provider: 'test', origin, message } as ProviderErrorMetadata;
        const statusCode = statuses[(index + turn) % statuses.length];
        const sdkCondition = conditions[(index + 3 * turn) % conditions.length];
        if (statusCode !== undefined) metadata.statusCode = statusCode;
        if (sdkCondition !== undefined) metadata.sdkCondition = sdkCondition;
        expectSame(metadata);
      });
    });
    expect(compared).toBeGreaterThan(5_000);
    // Pieces of real wordings spliced, under any origin, status, condition and code.
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...texts), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.constantFrom(...FAILURE_ORIGINS),
        fc.constantFrom(...conditions),
        fc.constantFrom(...statuses, 200, 401, 402, 415, 422, 529),
        fc.option(fc.constantFrom('rate_limit_exceeded', 'insufficient_quota', 'x'), { nil: undefined }),
        (pieces, cut, origin, sdkCondition, statusCode, providerCode) => {
          const message = pieces.map((piece) => piece.slice(cut % piece.length)).join(' ');
          const metadata = { provider: 'test', origin, message } as ProviderErrorMetadata;
          if (sdkCondition !== undefined) metadata.sdkCondition = sdkCondition;
          if (statusCode !== undefined) metadata.statusCode = statusCode;
          if (providerCode !== undefined) metadata.providerCode = providerCode;
          expectSame(metadata);
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
