import { DEPTH, LiteralScanner } from './prefilter.ts';
import type { ProviderErrorMetadata } from './schemas.ts';
import { MAX_EVIDENCE_LENGTH } from './values.ts';
import {
  ACCOUNT_BLOCK,
  ALLOWANCE,
  AMBIGUOUS_OVERFLOW,
  AUTH,
  AVAILABILITY,
  CAPACITY,
  CONTENT_POLICY,
  CREDENTIAL_REJECTED,
  INVALID_REQUEST,
  LIMIT_CONTEXT,
  LIMIT_NUMBERS,
  LONG_WINDOW,
  NO_ROUTE,
  OVERFLOW,
  PAYMENT,
  PERMISSION,
  QUOTA_ID_LONG,
  QUOTA_ID_SHORT,
  SERVER_FAULT,
  SHORT_WINDOW,
  THROTTLE,
  TOO_LARGE_FOR_BUDGET,
  UNSUPPORTED_MEDIA,
  type Vocabulary,
  WAIT_IN_WORDS,
  WARMING_UP,
} from './vocabulary.ts';
import { LITERAL_OFFSETS, REQUIRED_LITERALS } from './vocabulary-literals.ts';

/** The provider-blind features classify reads; each is a piece of evidence, or absent. */
export const FEATURE_NAMES = [
  'quotaIdWindow',
  'overflow',
  'ambiguousOverflow',
  'tooLargeForBudget',
  'limitNumbers',
  'limitContext',
  'shortWindow',
  'longWindow',
  'waitInWords',
  'payment',
  'allowance',
  'accountBlock',
  'credentialRejected',
  'auth',
  'permission',
  'availability',
  'noRoute',
  'contentPolicy',
  'unsupportedMedia',
  'warmingUp',
  'throttle',
  'capacity',
  'serverFault',
  'invalidRequest',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

type TextFeature = Exclude<FeatureName, 'quotaIdWindow'>;

const VOCABULARY_OF: Readonly<Record<TextFeature, Vocabulary>> = {
  overflow: OVERFLOW,
  ambiguousOverflow: AMBIGUOUS_OVERFLOW,
  tooLargeForBudget: TOO_LARGE_FOR_BUDGET,
  limitNumbers: LIMIT_NUMBERS,
  limitContext: LIMIT_CONTEXT,
  shortWindow: SHORT_WINDOW,
  longWindow: LONG_WINDOW,
  waitInWords: WAIT_IN_WORDS,
  payment: PAYMENT,
  allowance: ALLOWANCE,
  accountBlock: ACCOUNT_BLOCK,
  credentialRejected: CREDENTIAL_REJECTED,
  auth: AUTH,
  permission: PERMISSION,
  availability: AVAILABILITY,
  noRoute: NO_ROUTE,
  contentPolicy: CONTENT_POLICY,
  unsupportedMedia: UNSUPPORTED_MEDIA,
  warmingUp: WARMING_UP,
  throttle: THROTTLE,
  capacity: CAPACITY,
  serverFault: SERVER_FAULT,
  invalidRequest: INVALID_REQUEST,
};

/**
 * Each feature's index in FEATURE_NAMES: its slot in `Features`' values, its bit (1 << index)
 * in the masks of what was read and what may match, and what a rule passes to `Features.get`. Written out, not built from FEATURE_NAMES, so
 * that it is an object of fixed shape (a keyed read of it is one inline-cached load; a test checks
 * it against FEATURE_NAMES).
 */
export const INDEX_OF: Readonly<Record<FeatureName, number>> = {
  quotaIdWindow: 0,
  overflow: 1,
  ambiguousOverflow: 2,
  tooLargeForBudget: 3,
  limitNumbers: 4,
  limitContext: 5,
  shortWindow: 6,
  longWindow: 7,
  waitInWords: 8,
  payment: 9,
  allowance: 10,
  accountBlock: 11,
  credentialRejected: 12,
  auth: 13,
  permission: 14,
  availability: 15,
  noRoute: 16,
  contentPolicy: 17,
  unsupportedMedia: 18,
  warmingUp: 19,
  throttle: 20,
  capacity: 21,
  serverFault: 22,
  invalidRequest: 23,
};

/**
 * Each feature's vocabulary by its index (`undefined` for quotaIdWindow, which reads no text):
 * `read` looks its vocabulary up by the index it already has (a keyed load by a feature name that
 * varies from call to call is a megamorphic one).
 */
let vocabularyAt: ReadonlyArray<Vocabulary | undefined> | undefined;

/**
 * The prefilter (prefilter.ts), built on the first text feature read, never at import: one pass
 * over the text says which vocabulary entries can match it at all (their required literals occur
 * in it); a vocabulary none of whose entries can is not run, and one with some runs just those.
 * Feature i's entries are the scanner's lists `firstEntry[i]` to `firstEntry[i] + entryCount[i] - 1`.
 */
interface Prefilter {
  readonly scanner: LiteralScanner;
  readonly firstEntry: Int32Array;
  readonly entryCount: Int32Array;
  /** The last scan's answer, and its number (the `Features` that made it keeps the number). */
  readonly candidates: Int32Array;
  scans: number;
  /** Whether the last scan kept positions (`firstAt`): a real scan does. */
  positions: boolean;
  /**
   * Each list's offset bound (vocabulary-literals.ts): the most characters a match of its entry
   * has before the first of its literals; -1 when no bound is known.
   */
  readonly offsetBound: Int32Array;
}
let prefilter: Prefilter | undefined;

/**
 * How many `Features` read their text with every vocabulary's own regex before the prefilter is
 * built: the automaton pays for itself over many classifies, not over one (building it is most of
 * a cold process's first classify), so a process that classifies one failure never builds it.
 * The answers are the same either way (the prefilter only skips regexes that cannot match).
 */
let unfilteredLeft = 1;
/** `Features.scan` of one that reads without the prefilter. */
const UNFILTERED = -2;

export function literalPrefilter(): Prefilter {
  if (prefilter === undefined) {
    const lists: Array<readonly string[] | undefined> = [];
    const bounds: number[] = [];
    const firstEntry = new Int32Array(FEATURE_NAMES.length);
    const entryCount = new Int32Array(FEATURE_NAMES.length);
    FEATURE_NAMES.forEach((name, index) => {
      firstEntry[index] = lists.length;
      if (name === 'quotaIdWindow') return;
      // The table's rows give the layout (reading the patterns here would build every regex
      // object); `read` checks a row against its vocabulary before trusting it.
      const literals = REQUIRED_LITERALS[VOCABULARY_OF[name].name] ?? [];
      const offsets = LITERAL_OFFSETS[VOCABULARY_OF[name].name] ?? [];
      entryCount[index] = literals.length;
      literals.forEach((entry, at) => {
        lists.push(entry ?? undefined);
        bounds.push(entry === null ? -1 : (offsets[at] ?? -1));
      });
    });
    const scanner = new LiteralScanner(lists);
    prefilter = {
      scanner,
      firstEntry,
      entryCount,
      // One word more than the scan writes: `possibleFeatures` reads the word after a feature's first.
      candidates: new Int32Array(scanner.words + 1),
      scans: 0,
      positions: false,
      offsetBound: Int32Array.from(bounds),
    };
  }
  return prefilter;
}

/** The entries (bit i: entry i) of `count` lists from `first` that a scan's answer leaves as candidates. */
export function candidateEntries(candidates: Int32Array, first: number, count: number): number {
  const shift = first & 31;
  const word = first >> 5;
  let bits = (candidates[word] as number) >>> shift;
  // The entries run on into the next word (shift > 0 here, so the shift below is under 32).
  if (shift + count > 32) bits |= (candidates[word + 1] as number) << (32 - shift);
  return count >= 32 ? bits : bits & ((1 << count) - 1);
}

/**
 * Where a search for the candidate entries `among` (lists `first` on) may start in the last
 * scanned text: no match of an entry starts before its first literal occurrence less its offset
 * bound (required-literals.ts), and that occurrence starts at most DEPTH − 1 characters before the
 * position the scan kept. 0 when the scan kept no positions or a candidate has no bound.
 */
export function searchStart(filter: Prefilter, first: number, among: number): number {
  if (!filter.positions) return 0;
  const { firstAt } = filter.scanner;
  let start = Number.MAX_SAFE_INTEGER;
  for (let rest = among; rest !== 0; rest &= rest - 1) {
    const list = first + 31 - Math.clz32(rest & -rest);
    const bound = filter.offsetBound[list] as number;
    if (bound < 0) return 0;
    const from = (firstAt[list] as number) - (DEPTH - 1) - bound;
    if (from < start) start = from;
  }
  return Math.max(start, 0);
}

/**
 * The text features that have at least one candidate entry in the last scan (bit i: feature i),
 * or whose row of the literal table is out of step with its patterns (the whole vocabulary runs).
 * A scan leaves a few candidates (2–9 of 72 lists on the bench's messages): this walks the set
 * bits of the answer, each naming its list's feature (a loop over every feature read two words
 * for each of 23).
 */
function possibleFeatures(filter: Prefilter): number {
  featureBitOfList ??= featureBitsOf(filter);
  const bitOf = featureBitOfList;
  const { candidates } = filter;
  let possible = outOfStep;
  for (let word = 0; word < candidates.length; word += 1) {
    for (let bits = candidates[word] as number; bits !== 0; bits &= bits - 1) {
      possible |= bitOf[(word << 5) + 31 - Math.clz32(bits & -bits)] as number;
    }
  }
  return possible;
}

/** Per list of the scanner: its feature's bit (1 << index in FEATURE_NAMES). */
let featureBitOfList: Int32Array | undefined;
/** The features whose literal table row has another length than their patterns (none, when tested). */
let outOfStep = 0;

function featureBitsOf(filter: Prefilter): Int32Array {
  // A slot for every bit of the answer (lists past the last one have no bit set, and slot 0).
  const bits = new Int32Array(32 * filter.candidates.length);
  for (let index = 1; index < FEATURE_NAMES.length; index += 1) {
    const vocabulary = VOCABULARY_OF[FEATURE_NAMES[index] as TextFeature];
    const first = filter.firstEntry[index] as number;
    const count = filter.entryCount[index] as number;
    if (count !== vocabulary.patterns().length || count > 32) outOfStep |= 1 << index;
    for (let entry = first; entry < first + count; entry += 1) bits[entry] = 1 << index;
  }
  return bits;
}

/** The window a structured quota id names (only the window: the tier never decides). */
export interface QuotaIdWindow {
  readonly window: 'short' | 'long';
  readonly quotaId: string;
}

/** The longest message text read; a provider's words past this never change the decision. */
export const MAX_READ_LENGTH = 8192;

/**
 * Reads features lazily: each is computed the first time a rule asks for it, and remembered.
 * Rules ask in table order, so a structured field that decides (a quota id, an origin, an SDK
 * condition) means the vocabularies after it are never run. `read` lists what was read, in order,
 * for `explain`.
 */
export class Features {
  private textCache: string | undefined;
  /** The number of this Features' scan of the text (prefilter), -1 before it scans, UNFILTERED when it reads without. */
  private scan = -1;
  /** The features read so far (bit i: FEATURE_NAMES[i]), their values by index, and their order. */
  private readMask = 0;
  // Sized for every feature up front: a store past the end would grow it, read after read.
  private readonly values: unknown[] = new Array(FEATURE_NAMES.length);
  /**
   * The text features (bit i: FEATURE_NAMES[i]) with a candidate entry in this Features' scan; all
   * bits set before it scans (or when it reads without the prefilter).
   */
  private possible = -1;
  /** The order they were read in, kept only for `summary` (explain). */
  private readonly order: FeatureName[] | undefined;

  /** `keepOrder`: remember the order features are read in, for `summary` (classify needs none). */
  constructor(
    private readonly metadata: ProviderErrorMetadata,
    keepOrder = true,
  ) {
    this.order = keepOrder ? [] : undefined;
  }

  /** The provider's words: message (URLs removed), code, type and SDK error type, lower-cased. */
  get text(): string {
    if (this.textCache === undefined) {
      const { metadata } = this;
      const { message } = metadata;
      let prose = message.length > MAX_READ_LENGTH ? message.slice(0, MAX_READ_LENGTH) : message;
      // `withoutUrls` returns the text itself when it has no "://" (one search, not two).
      prose = withoutUrls(prose);
      this.textCache =
        `${prose} ${metadata.providerCode ?? ''} ${metadata.providerType ?? ''} ${metadata.sdkErrorType ?? ''}`.toLowerCase();
    }
    return this.textCache;
  }

  /**
   * The piece of the provider's words that shows a text feature, or `undefined`. `index` is the
   * feature's INDEX_OF (a text feature's: not quotaIdWindow's). An index, not a name: get is not
   * inlined into most rules, and finding the index of a name that varies (a keyed read of
   * INDEX_OF, or a Map read) was a third of the rule walk's time (measured).
   */
  get(index: number): string | undefined {
    if (((this.readMask >>> index) & 1) === 1) return this.values[index] as string | undefined;
    // After the scan, a feature with no candidate entry is absent: noted here, without a call.
    if (((this.possible >>> index) & 1) === 0) {
      this.readMask |= 1 << index;
      this.order?.push(FEATURE_NAMES[index] as FeatureName);
      return undefined;
    }
    return this.read(FEATURE_NAMES[index] as TextFeature, index);
  }

  /**
   * Whether one of the text features in `mask` (bit i: FEATURE_NAMES[i]) may be present: before
   * the scan every one may; after it, only those with a candidate entry (others are absent).
   */
  mayHave(mask: number): boolean {
    return (this.possible & mask) !== 0;
  }

  /** Reads a text feature for the first time. */
  private read(name: TextFeature, index: number): string | undefined {
    // After this Features' scan: a feature none of whose entries is a candidate is absent.
    if (((this.possible >>> index) & 1) === 0) {
      this.remember(name, index, undefined);
      return undefined;
    }
    const text = this.text;
    if (this.scan === -1 && prefilter === undefined && unfilteredLeft > 0) {
      unfilteredLeft -= 1;
      this.scan = UNFILTERED;
    }
    if (this.scan === UNFILTERED) {
      const found = VOCABULARY_OF[name].find(text);
      this.remember(name, index, found);
      return found;
    }
    const filter = literalPrefilter();
    // One scan per Features; its answer lives in the module's buffer until another Features scans
    // (a classify run in between, e.g. from an override: then this one scans again).
    if (this.scan !== filter.scans) {
      filter.positions = filter.scanner.scan(text, filter.candidates) === true;
      filter.scans += 1;
      this.scan = filter.scans;
      this.possible = possibleFeatures(filter);
    }
    vocabularyAt ??= FEATURE_NAMES.map((feature) =>
      feature === 'quotaIdWindow' ? undefined : VOCABULARY_OF[feature],
    );
    const vocabulary = vocabularyAt[index] as Vocabulary;
    const count = filter.entryCount[index] as number;
    // A table out of step with the patterns (its test fails) only costs speed: the whole vocabulary runs.
    let found: string | undefined;
    if (count !== vocabulary.patterns().length) found = vocabulary.find(text);
    else {
      const first = filter.firstEntry[index] as number;
      const among = candidateEntries(filter.candidates, first, count);
      // No required literal of any entry in the text: the vocabulary cannot match (prefilter.ts).
      found = among === 0 ? undefined : vocabulary.findAmong(text, among, searchStart(filter, first, among));
    }
    this.remember(name, index, found);
    return found;
  }

  /** The window of the structured quota ids: any long window outranks a short one. */
  quotaIdWindow(): QuotaIdWindow | undefined {
    if ((this.readMask & 1) === 1) return this.values[INDEX_OF.quotaIdWindow] as QuotaIdWindow | undefined;
    let result: QuotaIdWindow | undefined;
    const ids = this.metadata.quotaIds;
    // Most failures carry no quota ids: no empty array, no loops.
    if (ids === undefined) {
      this.remember('quotaIdWindow', 0, undefined);
      return undefined;
    }
    for (const id of ids) {
      if (QUOTA_ID_LONG.find(id.toLowerCase()) !== undefined) {
        result = { window: 'long', quotaId: id };
        break;
      }
    }
    if (result === undefined) {
      for (const id of ids) {
        if (QUOTA_ID_SHORT.find(id.toLowerCase()) !== undefined) {
          result = { window: 'short', quotaId: id };
          break;
        }
      }
    }
    this.remember('quotaIdWindow', 0, result);
    return result;
  }

  /** The wait the provider states in words, in seconds. */
  waitInWords(): number | undefined {
    const words = this.get(INDEX_OF.waitInWords);
    // A piece of `text`, lower-cased already.
    return words === undefined ? undefined : secondsOf(words);
  }

  /** "Limit 7000, ... Requested ~12903": the words, when the request alone is larger than the limit. */
  requestOverLimit(): string | undefined {
    const words = this.get(INDEX_OF.limitNumbers);
    if (words === undefined) return undefined;
    // The first two numbers, as `/(?:limit|requested):? ~?([\d,.]+)/g` finds them with two execs
    // (`limitNumberAt`: no match arrays, which were most of this on a Groq 413).
    const first = limitNumberAt(words, 0);
    if (first === -1) return undefined;
    const firstEnd = amountEnd(words, first);
    const second = limitNumberAt(words, firstEnd);
    if (second === -1) return undefined;
    const limit = amountOf(words, first, firstEnd);
    const requested = amountOf(words, second, amountEnd(words, second));
    return requested > limit && limit >= 0 ? words : undefined;
  }

  /** Every feature read so far, with its evidence (for `explain`). */
  summary(): Partial<Record<FeatureName, string | null>> {
    const summary: Partial<Record<FeatureName, string | null>> = {};
    for (const name of this.order ?? []) {
      const value = this.values[INDEX_OF[name]];
      if (value === undefined) summary[name] = null;
      else if (typeof value === 'string') summary[name] = evidenceOf(value);
      else
        summary[name] = evidenceOf(`${(value as QuotaIdWindow).window}: ${(value as QuotaIdWindow).quotaId}`);
    }
    return summary;
  }

  /** Keeps a feature's value; `index` is INDEX_OF[name], passed in (a keyed load by a name that varies is slow). */
  private remember(name: FeatureName, index: number, value: unknown): void {
    this.readMask |= 1 << index;
    this.values[index] = value;
    this.order?.push(name);
  }
}

/** 10^k for k ≤ 15 (every power of ten to 10^22 is a double exactly). */
const EXACT_POWERS_OF_TEN = Array.from({ length: 16 }, (_, k) => 10 ** k);

/** A digit, a comma or a dot: `[\d,.]`. */
const isAmountCharacter = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) || code === 0x2c || code === 0x2e;

/**
 * `Number(words.slice(start, end).replaceAll(',', ''))` of a run of `[\d,.]` (`amountEnd`; a wait's
 * amount in `secondsOf` is digits and at most one dot), read by hand: the slice, the replace and
 * `Number` of the fresh string were ~200 ns of a Groq limit message's ~550 in `requestOverLimit`,
 * and two fifths of `secondsOf`. Without its commas the run is digits and dots: no digit is
 * 0 when there is no dot ("" and "," are 0 to `Number`) and NaN when there is ("."); two dots are
 * NaN; else a decimal, exact when at most 15 digits (below 2^53, at most 15
 * decimals: one correctly rounded division, Clinger's fast path), and `Number` reads a longer one.
 */
export function amountOf(words: string, start: number, end: number): number {
  let digits = 0;
  let count = 0;
  let dots = 0;
  let decimals = 0;
  for (let at = start; at < end; at += 1) {
    const code = words.charCodeAt(at);
    if (code === 0x2c) continue; // ','
    if (code === 0x2e)
      dots += 1; // '.'
    else {
      digits = digits * 10 + (code - 0x30);
      count += 1;
      if (dots > 0) decimals += 1;
    }
  }
  if (dots > 1) return Number.NaN;
  if (count === 0) return dots === 0 ? 0 : Number.NaN;
  if (count > 15) return Number(words.slice(start, end).replaceAll(',', ''));
  return decimals === 0 ? digits : digits / (EXACT_POWERS_OF_TEN[decimals] as number);
}

/** The end of the run of `[\d,.]` in `words` from `at`. */
export function amountEnd(words: string, at: number): number {
  let end = at;
  while (end < words.length && isAmountCharacter(words.charCodeAt(end))) end += 1;
  return end;
}

/**
 * Where the number that `/(?:limit|requested):? ~?([\d,.]+)/g` finds from `from` in `words` starts
 * (its group; it ends at `amountEnd`), or -1 when it finds none. Read by hand, as the regex reads
 * it: at the first position where "limit" or "requested" (never both: they start with other
 * letters) is followed by an optional colon, one space, an optional tilde and one of `[\d,.]`.
 * The colon and the tilde can only be taken (what must follow each, a space or a number
 * character, is never a colon or a tilde), so nothing backtracks.
 */
export function limitNumberAt(words: string, from: number): number {
  let limitAt = words.indexOf('limit', from);
  let requestedAt = words.indexOf('requested', from);
  while (limitAt !== -1 || requestedAt !== -1) {
    const isLimit = requestedAt === -1 || (limitAt !== -1 && limitAt < requestedAt);
    const at = isLimit ? limitAt : requestedAt;
    let next = at + (isLimit ? 5 : 9);
    if (words.charCodeAt(next) === 0x3a) next += 1; // ':'
    if (words.charCodeAt(next) === 0x20) {
      next += 1;
      if (words.charCodeAt(next) === 0x7e) next += 1; // '~'
      if (isAmountCharacter(words.charCodeAt(next))) return next;
    }
    if (isLimit) limitAt = words.indexOf('limit', at + 1);
    else requestedAt = words.indexOf('requested', at + 1);
  }
  return -1;
}

/** An ASCII letter, digit or underscore: a word character of `\b` (without the `u` flag). */
function isWordCharacter(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f
  );
}

/** Whether `text` has `scheme` (lower-case ASCII) at `at`, in any case. */
function schemeAt(text: string, at: number, scheme: string): boolean {
  if (at < 0) return false;
  for (let index = 0; index < scheme.length; index += 1) {
    // ASCII letters only: `i` without `u` folds no other character onto them.
    if ((text.charCodeAt(at + index) | 0x20) !== scheme.charCodeAt(index)) return false;
  }
  return true;
}

/** Finds the white space that ends a URL (`withoutUrls`), from its `lastIndex`. */
let urlEnd: RegExp | undefined;

/**
 * `text.replace(/\b(?:https?|wss?):\/\/\S+/gi, ' ')`, by hand (the regex walked every message
 * with a "://"): each "://" with one of the schemes right before it, at a word boundary, and at
 * least one non-space after it, is replaced up to the next white space. A scheme is letters and
 * "://" has none, so a scheme ends exactly at its "://", and at most one of the four ends there
 * ("https"/"http" end in s/p, "wss"/"ws" in ss/ws). The search goes on after each replaced URL,
 * as the global regex's does. The URL's end is found with `\s` itself, searched from the "://"
 * on (`test` makes no match array): a quarter faster than reading the URL with `charCodeAt`.
 */
export function withoutUrls(text: string): string {
  let result = '';
  let kept = 0;
  let from = 0;
  for (let separator = text.indexOf('://'); separator !== -1; separator = text.indexOf('://', from)) {
    let start = -1;
    if (schemeAt(text, separator - 5, 'https')) start = separator - 5;
    else if (schemeAt(text, separator - 4, 'http')) start = separator - 4;
    else if (schemeAt(text, separator - 3, 'wss')) start = separator - 3;
    else if (schemeAt(text, separator - 2, 'ws')) start = separator - 2;
    let end = separator + 3;
    if (start === -1 || (start > 0 && isWordCharacter(text.charCodeAt(start - 1))) || end >= text.length) {
      from = separator + 1;
      continue;
    }
    urlEnd ??= /\s/g;
    urlEnd.lastIndex = end;
    end = urlEnd.test(text) ? urlEnd.lastIndex - 1 : text.length;
    urlEnd.lastIndex = 0;
    if (end === separator + 3) {
      from = separator + 1;
      continue;
    }
    result += `${text.slice(kept, start)} `;
    kept = end;
    from = end;
  }
  return kept === 0 ? text : result + text.slice(kept);
}

/**
 * Seconds per unit, for every unit word the WAIT_IN_WORDS pattern accepts, of the lower-case
 * letters `words` holds from `start` to `end`; `undefined` for any other word. Compared in place
 * (`startsWith` at the position): a slice and a Map read of it were a fifth of `secondsOf`.
 */
function unitSeconds(words: string, start: number, end: number): number | undefined {
  switch (end - start) {
    case 1:
      switch (words.charCodeAt(start)) {
        case 0x68: // h
          return 3600;
        case 0x6d: // m
          return 60;
        case 0x73: // s
          return 1;
        default:
          return undefined;
      }
    case 2:
      if (words.startsWith('ms', start)) return 0.001;
      return words.startsWith('hr', start) ? 3600 : undefined;
    case 3:
      if (words.startsWith('min', start)) return 60;
      if (words.startsWith('sec', start)) return 1;
      return words.startsWith('hrs', start) ? 3600 : undefined;
    case 4:
      if (words.startsWith('mins', start)) return 60;
      if (words.startsWith('secs', start)) return 1;
      return words.startsWith('hour', start) ? 3600 : undefined;
    case 5:
      return words.startsWith('hours', start) ? 3600 : undefined;
    case 6:
      if (words.startsWith('minute', start)) return 60;
      return words.startsWith('second', start) ? 1 : undefined;
    case 7:
      if (words.startsWith('minutes', start)) return 60;
      return words.startsWith('seconds', start) ? 1 : undefined;
    case 11:
      return words.startsWith('millisecond', start) ? 0.001 : undefined;
    case 12:
      return words.startsWith('milliseconds', start) ? 0.001 : undefined;
    default:
      return undefined;
  }
}

/**
 * JavaScript's white space (`\s`): what `\s*` skips and `\S+` stops at. Written out rather than
 * tested with a regex: it runs on every character of a URL.
 */
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

/**
 * "try again in 2h 14m" → 8040; "retry in 26.028202s" → 26.028202; "in 450ms" → 0.45.
 *
 * Each amount is what `/(\d+(?:\.\d+)?)\s*([a-z]+)/g` finds in the lower-cased words, read by hand
 * (the regex, its match arrays and a unit lookup per amount were a tenth of classify's time on a
 * rate-limit message): a run of digits, a fraction when a dot and a digit follow, white space, then
 * the whole run of letters, whose unit counts when known. Where no letter follows, the regex finds
 * no match starting anywhere in that number either, and moves on; so does this.
 *
 * `lower` is lower-cased already: a piece of `Features.text`, or of the lower-cased text
 * `waitFromText` searches, which lower-casing again leaves as this reads it (hand-readers.test.ts
 * checks it on fuzzed text), so no caller pays a second copy (a fifth of this function's time).
 */
export function secondsOf(lower: string): number | undefined {
  let total = 0;
  let found = false;
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
    if (unitEnd === unitStart) continue; // No letters: no match here; the scan goes on after the number.
    at = unitEnd;
    const perUnit = unitSeconds(lower, unitStart, unitEnd);
    if (perUnit === undefined) continue;
    total += amountOf(lower, start, end) * perUnit;
    found = true;
  }
  return found && Number.isFinite(total) ? total : undefined;
}

// Built on first use. Secrets and account identifiers a piece of provider text could carry; render
// scrubs every field again with its full list before anything leaves the process, this is the
// first line (classify does not depend on render, which sits above it).
let secretPatterns: ReadonlyArray<readonly [RegExp, string]> | undefined;
// One pass that says whether any pattern below could match: most evidence ("per minute", "status
// 429", a quota id) has nothing to scrub, and then costs one test instead of nine replaces.
let secretHint: RegExp | undefined;

/**
 * A bounded, scrubbed piece of evidence: at most `MAX_EVIDENCE_LENGTH` characters, whitespace
 * collapsed, keys, tokens and account or organisation identifiers replaced.
 */
export function evidenceOf(text: string): string {
  const known = evidenceMemo.get(text);
  if (known !== undefined) return known;
  const evidence = scrubbedEvidence(text);
  // A pure function of short, recurring inputs ("status 429", "per minute", "rate limit"): kept,
  // bounded (emptied when full) so that a stream of distinct inputs holds little.
  if (text.length <= 256) {
    if (evidenceMemo.size >= 256) evidenceMemo.clear();
    evidenceMemo.set(text, evidence);
  }
  return evidence;
}

const evidenceMemo = new Map<string, string>();

function scrubbedEvidence(text: string): string {
  secretPatterns ??= [
    [/\b(bearer|basic)\s+\S+/gi, '$1 [redacted]'],
    [
      /\b((?:x-)?(?:api[_-]?key|apikey|access[_-]?token|token|secret|password|authorization|key)\s*[:=]\s*['"]?)[^\s'",;}]+/gi,
      '$1[redacted]',
    ],
    [/(?<![a-z0-9])(?:sk|gsk|xai|hf|pk|rk)[-_][a-z0-9_-]{6,}/gi, '[redacted]'],
    [/(?<![a-z0-9])aiza[0-9a-z_-]{10,}/gi, '[redacted]'],
    [/(?<![a-z0-9])(?:akia|asia)[0-9a-z]{12,}/gi, '[redacted]'],
    [/(?<![a-z0-9])(?:org|proj|user|acct|ws)[-_][a-z0-9]{4,}/gi, '[id]'],
    [/\b[\w.+-]+@[\w-]+\.[\w.-]+/g, '[email]'],
    [/\b(?:projects?|accounts?|organizations?|consumer)(\/|\s+|:)['"]?[\w:-]*\d[\w:-]*/gi, '[id]'],
    // Any long token with a digit in it: keys, hashes, account numbers (quota ids have none).
    [/(?<!\w)(?=\w*\d)\w{20,}/g, '[redacted]'],
  ];
  let result = text
    .slice(0, 4 * MAX_EVIDENCE_LENGTH)
    .replace(/\s+/g, ' ')
    .trim();
  secretHint ??=
    /bearer|basic|key|token|secret|password|authori|sk[-_]|gsk|xai|hf_|pk[-_]|rk[-_]|aiza|akia|asia|org|proj|user|acct|ws[-_]|@|consumer|account|\w{20}/i;
  if (!secretHint.test(result)) {
    return result.length > MAX_EVIDENCE_LENGTH ? `${result.slice(0, MAX_EVIDENCE_LENGTH - 1)}…` : result;
  }
  for (const [pattern, replacement] of secretPatterns) result = result.replace(pattern, replacement);
  return result.length > MAX_EVIDENCE_LENGTH ? `${result.slice(0, MAX_EVIDENCE_LENGTH - 1)}…` : result;
}
