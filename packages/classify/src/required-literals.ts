/**
 * Reads a vocabulary's REQUIRED LITERALS: a set of strings such that every match of the pattern
 * contains at least one of them (`context[ _-]?(?:length|window)` requires `context`, and
 * `(?:prompt|input) (?:is )?too long` one of `prompt `, `input `). A text that contains none of a
 * vocabulary's literals cannot match it, so its regex need not run (prefilter.ts).
 *
 * Reading 130 patterns costs about 30 ms, too much for the first classify, so this runs in the
 * tests, which keep the table in vocabulary-literals.ts equal to what it derives
 * (prefilter.test.ts; `UPDATE_LITERALS=1` rewrites the table). It follows the regex subset the
 * vocabularies use; anything it does not know gives "no requirement", which only means the regex
 * runs every time (sound, never wrong).
 */

import { DEPTH } from './prefilter.ts';
import type { Vocabulary } from './vocabulary.ts';

/** What one piece of a pattern can match, as far as literals go. */
interface Info {
  /** Every string the piece can match, when few and known; `undefined` when not. */
  readonly exact: ReadonlySet<string> | undefined;
  /** Every match contains one of these (none may be empty); `undefined`: no requirement known. */
  readonly required: ReadonlySet<string> | undefined;
}

/** The most strings an `exact` set keeps before it is given up (a cross product grows fast). */
const MAX_EXACT = 64;

/** One character of a class the reader does not list (`.`, `\\d`, `[a-z]`). */
const UNKNOWN_CHARACTER: Info = { exact: undefined, required: undefined };
/** The ten characters `\d` matches: exact, so `per \d` requires `per 0` … `per 9`. */
const DIGITS: ReadonlySet<string> = new Set('0123456789');
/** Matches no character (`\b`, `^`, a lookaround). */
const EMPTY: Info = { exact: new Set(['']), required: undefined };
/** Matches anything, maybe nothing (`.{0,40}`, `x*`). */
const ANY: Info = { exact: undefined, required: undefined };

/** The requirement a piece gives on its own: its exact strings when none is empty. */
function requiredOf(info: Info): ReadonlySet<string> | undefined {
  return better(info.exact !== undefined && !info.exact.has('') ? info.exact : undefined, info.required);
}

/**
 * How often each character occurs in English prose (letters: the usual letter frequencies, scaled
 * by the share of letters; the space about one character in six). A literal's SURPRISE is the sum
 * of its characters' −log2 frequency: the rarer its characters, the fewer texts contain it. A rough
 * estimate that knows no words, used only to choose which part of a long literal to look for
 * (`windowOf`: `nization_r` of `organization_restricted`, not `organizati`, which every
 * "organization" has). A character not listed (digits, `_`, `-`, punctuation) counts as rare.
 */
const FREQUENCY: Readonly<Record<string, number>> = {
  ' ': 0.17,
  e: 0.105,
  t: 0.075,
  a: 0.068,
  o: 0.062,
  i: 0.058,
  n: 0.056,
  s: 0.052,
  h: 0.05,
  r: 0.05,
  d: 0.035,
  l: 0.033,
  c: 0.023,
  u: 0.023,
  m: 0.02,
  w: 0.019,
  f: 0.018,
  g: 0.016,
  y: 0.016,
  p: 0.016,
  b: 0.012,
  v: 0.008,
  k: 0.006,
  j: 0.0013,
  x: 0.0013,
  q: 0.0008,
  z: 0.0006,
};
const RARE = 0.004;

/** A literal's surprise in bits (see FREQUENCY). */
function surprise(literal: string): number {
  let bits = 0;
  for (const character of literal) bits -= Math.log2(FREQUENCY[character] ?? RARE);
  return bits;
}

/**
 * English function words: they occur in most messages (`per`, `your `, `the `), so a literal's
 * characters that spell one (or a space) tell little about a text that contains it.
 */
const COMMON_WORDS = new Set(
  'a an and are as at be been by can do does for from has have in is it its no not of on or our per please that the this to was we were will with you your'.split(
    ' ',
  ),
);

/**
 * How much a literal tells: its length, except that one made only of function words (and what is
 * not a letter) tells only its other characters: `per` tells nothing and `your ` 1 (its space),
 * while `day` tells 3 and ` has been banned` 16. A literal with a digit tells its length too: a
 * function word with a number after it (`per 1`, `per_5`) is a count, not prose, and far rarer
 * in a message than `sec` or `min`, which "seconds" and "minimum" hold.
 */
function informative(literal: string): number {
  if (/\d/.test(literal)) return literal.length;
  const words = literal.split(/[^a-z]+/).filter((word) => word.length > 0);
  if (!words.every((word) => COMMON_WORDS.has(word))) return literal.length;
  return literal.length - words.reduce((sum, word) => sum + word.length, 0);
}

/**
 * A requirement whose least telling literal tells this much is rare enough in prose: past it,
 * fewer literals (a smaller automaton) beat more telling ones.
 */
const SELECTIVE = DEPTH;

/** How much the least telling literal of a set tells (as its window: `windowOf`), up to SELECTIVE. */
function selectivity(set: ReadonlySet<string>): number {
  let least = SELECTIVE;
  for (const entry of set) least = Math.min(least, informative(windowOf(entry)));
  return least;
}

/**
 * The part of a literal the prefilter looks for: the literal, or when it is longer than the
 * scanner's DEPTH, its most surprising DEPTH-character window (`restricted` of
 * `organization_restricted`, where the first ten, `organizati`, occur in every "organization").
 * A text that contains the literal contains the window, so the window is as sound a requirement.
 */
export function windowOf(literal: string): string {
  if (literal.length <= DEPTH) return literal;
  // The window that tells most (`informative`), then that is not cut where a word of the literal
  // ends (`openEnded`), then whose characters are rarest (`surprise`).
  let best = literal.slice(0, DEPTH);
  let bestTells = informative(best);
  let bestOpen = openEnded(literal, 0);
  let bestBits = surprise(best);
  for (let at = 1; at + DEPTH <= literal.length; at += 1) {
    const window = literal.slice(at, at + DEPTH);
    const tells = informative(window);
    const open = openEnded(literal, at);
    const bits = surprise(window);
    if (
      tells > bestTells ||
      (tells === bestTells && bestOpen && !open) ||
      (tells === bestTells && open === bestOpen && bits > bestBits)
    ) {
      best = window;
      bestTells = tells;
      bestOpen = open;
      bestBits = bits;
    }
  }
  return best;
}

/**
 * Whether the window of `literal` at `at` holds no whole word (one with a non-letter on both sides
 * inside the window): `nput token` and `input toke` of "input token count", `subscripti` of
 * "subscription does". Such a window is in any text that has its words alone or with a suffix
 * ("input tokens per minute", "ViewSubscription"), however rare its letters; one that holds a whole
 * word (`put token `, `ion does n`) asks for the phrase.
 */
function openEnded(literal: string, at: number): boolean {
  return !/[^a-z][a-z]+[^a-z]/.test(literal.slice(at, at + DEPTH));
}

/** The better of two requirements: the more selective one, then the smaller. */
function better(
  a: ReadonlySet<string> | undefined,
  b: ReadonlySet<string> | undefined,
): ReadonlySet<string> | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const bitsA = selectivity(a);
  const bitsB = selectivity(b);
  if (bitsA !== bitsB) return bitsA > bitsB ? a : b;
  return a.size <= b.size ? a : b;
}

function concatenate(left: Info, right: Info): Info {
  let exact: Set<string> | undefined;
  if (
    left.exact !== undefined &&
    right.exact !== undefined &&
    left.exact.size * right.exact.size <= MAX_EXACT
  ) {
    exact = new Set();
    for (const a of left.exact) for (const b of right.exact) exact.add(a + b);
  }
  const required = better(
    exact !== undefined && !exact.has('') ? exact : undefined,
    better(requiredOf(left), requiredOf(right)),
  );
  return { exact, required };
}

function alternate(branches: readonly Info[]): Info {
  let exact: Set<string> | undefined = new Set();
  let required: Set<string> | undefined = new Set();
  for (const branch of branches) {
    if (exact !== undefined && branch.exact !== undefined && exact.size + branch.exact.size <= MAX_EXACT) {
      for (const entry of branch.exact) exact.add(entry);
    } else exact = undefined;
    const own = requiredOf(branch);
    if (required !== undefined && own !== undefined) for (const entry of own) required.add(entry);
    else required = undefined;
  }
  return { exact, required };
}

/**
 * A recursive-descent reader of the regex subset the vocabularies use: literals, escapes, `.`,
 * classes, groups (capturing, non-capturing, lookarounds), alternation and quantifiers. It never
 * needs to accept a pattern: the pattern is a RegExp already; it only has to stay sound.
 */
class PatternReader {
  private at = 0;
  constructor(private readonly source: string) {}

  read(): Info {
    const info = this.alternation();
    // Anything left over (an unbalanced `)`) means the reader lost its way: claim nothing.
    return this.at === this.source.length ? info : UNKNOWN_CHARACTER;
  }

  private alternation(): Info {
    const branches = [this.sequence()];
    while (this.source[this.at] === '|') {
      this.at += 1;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? (branches[0] as Info) : alternate(branches);
  }

  private sequence(): Info {
    // `whole`: what the sequence as a whole can match (for the groups and alternations around it).
    // `run`: the exact strings of the pieces since the last unknown one, so that a literal after a
    // `.{0,40}` (`consumer .{0,120} has been suspended`) still counts; any contiguous run's
    // requirement is one of the whole sequence's, and the best one is kept.
    let whole = EMPTY;
    let run = EMPTY;
    let best: ReadonlySet<string> | undefined;
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      for (const piece of this.pieces(this.atom())) {
        whole = concatenate(whole, piece);
        const extended = concatenate(run, piece);
        if (extended.exact !== undefined) run = extended;
        else {
          best = better(best, better(requiredOf(run), extended.required));
          run = piece.exact !== undefined ? piece : EMPTY;
        }
      }
    }
    return { exact: whole.exact, required: better(whole.required, better(best, requiredOf(run))) };
  }

  /**
   * An atom and its quantifier, as pieces in a row: `x+` is `x` then `x*`, so the first x's strings
   * join the literal before it (`per[ _-]?\d+` requires `per0` … `per-9`); anything else is one piece.
   */
  private pieces(atom: Info): Info[] {
    if (this.source[this.at] !== '+') return [this.quantified(atom)];
    this.at += 1;
    if (this.source[this.at] === '?') this.at += 1; // Lazy: the same strings.
    return [atom, ANY];
  }

  private quantified(atom: Info): Info {
    const next = this.source[this.at];
    let minimum: number;
    if (next === '?' || next === '*') {
      minimum = 0;
      this.at += 1;
    } else if (next === '+') {
      minimum = 1;
      this.at += 1;
    } else if (next === '{') {
      const bounds = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (bounds === null) return atom; // A literal `{` (not used, but harmless).
      minimum = Number(bounds[1]);
      const exactCount = bounds[2] === undefined;
      this.at += bounds[0].length;
      if (this.source[this.at] === '?') this.at += 1;
      if (exactCount && minimum === 1) return atom;
      // `x{0,n}` may match nothing or anything x can repeat into: it claims nothing.
      return minimum === 0 ? ANY : { exact: undefined, required: requiredOf(atom) };
    } else {
      return atom;
    }
    if (this.source[this.at] === '?') this.at += 1; // Lazy: the same strings.
    if (minimum === 0) {
      // `x?`: x or nothing; `x*`: nothing is required.
      if (next === '?' && atom.exact !== undefined)
        return { exact: new Set([...atom.exact, '']), required: undefined };
      return ANY;
    }
    // `x+`: every match contains a match of x.
    return { exact: undefined, required: requiredOf(atom) };
  }

  private atom(): Info {
    const character = this.source[this.at] as string;
    this.at += 1;
    switch (character) {
      case '(':
        return this.group();
      case '[':
        return this.characterClass();
      case '\\':
        return this.escape();
      case '.':
        return UNKNOWN_CHARACTER;
      case '^':
      case '$':
        return EMPTY;
      default:
        return { exact: new Set([character]), required: undefined };
    }
  }

  private group(): Info {
    let lookaround = false;
    if (this.source[this.at] === '?') {
      const kind = this.source.slice(this.at, this.at + 3);
      if (kind.startsWith('?:')) this.at += 2;
      else if (kind.startsWith('?=') || kind.startsWith('?!')) {
        this.at += 2;
        lookaround = true;
      } else if (kind === '?<=' || kind === '?<!') {
        this.at += 3;
        lookaround = true;
      } else {
        // A named group `(?<name>`: skip the name.
        const close = this.source.indexOf('>', this.at);
        this.at = close === -1 ? this.source.length : close + 1;
      }
    }
    const inner = this.alternation();
    if (this.source[this.at] === ')') this.at += 1;
    // A lookaround matches no characters: ignoring what it asserts only weakens the requirement.
    return lookaround ? EMPTY : inner;
  }

  private characterClass(): Info {
    const characters = new Set<string>();
    let simple = this.source[this.at] !== '^';
    while (this.at < this.source.length && this.source[this.at] !== ']') {
      let character = this.source[this.at] as string;
      this.at += 1;
      if (character === '\\') {
        character = this.source[this.at] ?? '';
        this.at += 1;
        if (/[a-zA-Z0-9]/.test(character)) simple = false; // \d, \w, \s, \u…: a range of characters.
      } else if (character === '-' && characters.size > 0 && this.source[this.at] !== ']') {
        simple = false; // A range a-z.
      }
      characters.add(character);
    }
    this.at += 1; // The closing `]`.
    return simple && characters.size <= 8 ? { exact: characters, required: undefined } : UNKNOWN_CHARACTER;
  }

  private escape(): Info {
    const character = this.source[this.at] ?? '';
    this.at += 1;
    if (character === 'b' || character === 'B') return EMPTY; // A word boundary matches no character.
    if (character === 'd') return { exact: DIGITS, required: undefined };
    // An escaped punctuation mark is itself; a letter or digit escape (\d, \s, \w, \n, \u…) is a
    // class of characters, or more, and claims nothing.
    if (/[a-zA-Z0-9]/.test(character)) return UNKNOWN_CHARACTER;
    return { exact: new Set([character]), required: undefined };
  }
}

/**
 * The literals one of which every match of `pattern` contains, or `undefined` when the pattern
 * has no such requirement (or uses syntax the reader does not follow). The pattern must have no
 * flags that change what a literal matches (`i`, `u`, `v`): the vocabularies have none.
 */
export function requiredLiterals(pattern: RegExp): ReadonlySet<string> | undefined {
  if (/[iuvx]/.test(pattern.flags)) return undefined;
  if (/\\[upPkcx]/.test(pattern.source)) return undefined;
  const required = requiredOf(new PatternReader(pattern.source).read());
  if (required === undefined || required.size === 0) return undefined;
  for (const literal of required) if (literal === '') return undefined;
  // A requirement of bare digits (`\d+`) lets nearly every failure through (status codes, ids,
  // amounts): claim none rather than have the scanner look for ten one-character literals.
  if ([...required].every((literal) => /^\d+$/.test(literal))) return undefined;
  return required;
}

/**
 * The required literals of each entry of a vocabulary, without any literal that contains another
 * (the shorter occurs wherever the longer does); `undefined` for an entry that has none.
 */
export function entryLiterals(vocabulary: Vocabulary): Array<readonly string[] | undefined> {
  return vocabulary.patterns().map((entry) => {
    const literals = requiredLiterals(entry);
    if (literals === undefined) return undefined;
    // Each literal as the window the scanner looks for (at most DEPTH long, so it keeps it whole).
    const windows = [...new Set([...literals].map(windowOf))];
    return windows
      .filter((literal) => !windows.some((other) => other !== literal && literal.includes(other)))
      .sort();
  });
}

const quoted = (literal: string): string => `'${literal.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** The source of vocabulary-literals.ts for these vocabularies (what `UPDATE_LITERALS=1` writes). */
export function literalsTableSource(unordered: readonly Vocabulary[]): string {
  // By name: the table's order does not depend on the order the vocabularies were listed in.
  const vocabularies = [...unordered].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rows = vocabularies.map((vocabulary) => {
    const entries = entryLiterals(vocabulary).map((literals) =>
      literals === undefined ? 'null' : `[${literals.map(quoted).join(', ')}]`,
    );
    return `  ${vocabulary.name}: [${entries.join(', ')}],`;
  });
  const bounds = vocabularies.map((vocabulary) => {
    const entries = entryOffsetBounds(vocabulary).map((bound) => (bound === undefined ? 'null' : `${bound}`));
    return `  ${vocabulary.name}: [${entries.join(', ')}],`;
  });
  return `// Generated from vocabulary.ts by required-literals.ts: do not edit. After changing a vocabulary,
// run \`UPDATE_LITERALS=1 npx vitest run src/prefilter.test.ts\` in packages/classify, then
// \`pnpm biome format --write packages/classify/src/vocabulary-literals.ts\` (that test fails while
// this table differs from what the patterns require).

/**
 * The required literals of each entry of each vocabulary, in entry order: every match of the entry
 * contains one of them (null: the entry has none, and always runs). Read by the prefilter
 * (prefilter.ts).
 */
export const REQUIRED_LITERALS: Readonly<Record<string, ReadonlyArray<readonly string[] | null>>> = {
${rows.join('\n')}
};

/**
 * Each entry's offset bound: the most characters a match of the entry has before the first of its
 * required literals it contains (null: no bound known). A search for the entry may start that far
 * before the first occurrence of one of its literals (features.ts \`searchStart\`).
 */
export const LITERAL_OFFSETS: Readonly<Record<string, ReadonlyArray<number | null>>> = {
${bounds.join('\n')}
};
`;
}

/**
 * A pattern read as a tree, for `literalOffsetBound`: a set of characters (`undefined`: a class not
 * listed), a sequence, an alternation, a repetition (`max` Infinity when unbounded), or a piece
 * that matches no character (`\b`, `^`, a lookaround).
 */
type Node =
  | { readonly kind: 'char'; readonly chars: ReadonlySet<string> | undefined }
  | { readonly kind: 'seq'; readonly items: readonly Node[] }
  | { readonly kind: 'alt'; readonly branches: readonly Node[] }
  | { readonly kind: 'repeat'; readonly node: Node; readonly min: number; readonly max: number }
  | { readonly kind: 'empty' };

/** Syntax the tree reader does not follow (a back reference, a Unicode escape): no bound is claimed. */
class Unfollowed extends Error {}

/** Reads the same regex subset as `PatternReader`, into a tree. */
class TreeReader {
  private at = 0;
  constructor(private readonly source: string) {}

  read(): Node {
    const node = this.alternation();
    if (this.at !== this.source.length) throw new Unfollowed();
    return node;
  }

  private alternation(): Node {
    const branches = [this.sequence()];
    while (this.source[this.at] === '|') {
      this.at += 1;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? (branches[0] as Node) : { kind: 'alt', branches };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      const atom = this.atom();
      // `x+` is `x` then `x*` (as PatternReader reads it): the first x joins a run of known strings.
      if (this.source[this.at] === '+') {
        this.at += 1;
        if (this.source[this.at] === '?') this.at += 1;
        items.push(atom, { kind: 'repeat', node: atom, min: 0, max: Number.POSITIVE_INFINITY });
      } else items.push(this.quantified(atom));
    }
    return { kind: 'seq', items };
  }

  private quantified(node: Node): Node {
    const next = this.source[this.at];
    let min: number;
    let max: number;
    if (next === '?' || next === '*' || next === '+') {
      min = next === '+' ? 1 : 0;
      max = next === '?' ? 1 : Number.POSITIVE_INFINITY;
      this.at += 1;
    } else if (next === '{') {
      const bounds = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (bounds === null) throw new Unfollowed();
      min = Number(bounds[1]);
      max = bounds[2] === undefined ? min : bounds[3] === '' ? Number.POSITIVE_INFINITY : Number(bounds[3]);
      this.at += bounds[0].length;
    } else {
      return node;
    }
    if (this.source[this.at] === '?') this.at += 1; // Lazy: the same strings.
    return { kind: 'repeat', node, min, max };
  }

  private atom(): Node {
    const character = this.source[this.at] as string;
    this.at += 1;
    switch (character) {
      case '(':
        return this.group();
      case '[':
        return this.characterClass();
      case '\\':
        return this.escape();
      case '.':
        return { kind: 'char', chars: undefined };
      case '^':
      case '$':
        return { kind: 'empty' };
      case ')':
      case '|':
      case '*':
      case '+':
      case '?':
      case '{':
        throw new Unfollowed();
      default:
        return { kind: 'char', chars: new Set([character]) };
    }
  }

  private group(): Node {
    let lookaround = false;
    if (this.source[this.at] === '?') {
      const kind = this.source.slice(this.at, this.at + 3);
      if (kind.startsWith('?:')) this.at += 2;
      else if (kind.startsWith('?=') || kind.startsWith('?!')) {
        this.at += 2;
        lookaround = true;
      } else if (kind === '?<=' || kind === '?<!') {
        this.at += 3;
        lookaround = true;
      } else {
        const close = this.source.indexOf('>', this.at);
        if (close === -1) throw new Unfollowed();
        this.at = close + 1;
      }
    }
    const inner = this.alternation();
    if (this.source[this.at] !== ')') throw new Unfollowed();
    this.at += 1;
    return lookaround ? { kind: 'empty' } : inner;
  }

  private characterClass(): Node {
    const characters = new Set<string>();
    let simple = this.source[this.at] !== '^';
    while (this.at < this.source.length && this.source[this.at] !== ']') {
      let character = this.source[this.at] as string;
      this.at += 1;
      if (character === '\\') {
        character = this.source[this.at] ?? '';
        this.at += 1;
        if (/[a-zA-Z0-9]/.test(character)) simple = false;
      } else if (character === '-' && characters.size > 0 && this.source[this.at] !== ']') {
        simple = false;
      }
      characters.add(character);
    }
    if (this.source[this.at] !== ']') throw new Unfollowed();
    this.at += 1;
    // One character either way; which ones only matters for the exact strings.
    return { kind: 'char', chars: simple ? characters : undefined };
  }

  private escape(): Node {
    const character = this.source[this.at] ?? '';
    this.at += 1;
    if (character === 'b' || character === 'B') return { kind: 'empty' };
    if (character === 'd') return { kind: 'char', chars: DIGITS };
    // One character of a class: digits, word characters, white space, a control escape.
    if ('dDwWsSntrfv'.includes(character)) return { kind: 'char', chars: undefined };
    // Anything else a letter or digit starts (a back reference, \u, \x, \p, \k, \c) may match
    // more than one character or be unknown: claim nothing.
    if (/[a-zA-Z0-9]/.test(character) || character === '') throw new Unfollowed();
    return { kind: 'char', chars: new Set([character]) };
  }
}

/** The most characters a match of the node spans. */
function maxLength(node: Node): number {
  switch (node.kind) {
    case 'char':
      return 1;
    case 'empty':
      return 0;
    case 'seq':
      return node.items.reduce((sum, item) => sum + maxLength(item), 0);
    case 'alt':
      return Math.max(...node.branches.map(maxLength));
    case 'repeat': {
      const one = maxLength(node.node);
      return one === 0 ? 0 : one * node.max;
    }
  }
}

/** Every string the node matches, when there are at most MAX_EXACT of them; else `undefined`. */
function exactOf(node: Node): ReadonlySet<string> | undefined {
  switch (node.kind) {
    case 'char':
      return node.chars;
    case 'empty':
      return new Set(['']);
    case 'seq': {
      let strings: ReadonlySet<string> | undefined = new Set(['']);
      for (const item of node.items) strings = product(strings, exactOf(item));
      return strings;
    }
    case 'alt': {
      const strings = new Set<string>();
      for (const branch of node.branches) {
        const own = exactOf(branch);
        if (own === undefined || strings.size + own.size > MAX_EXACT) return undefined;
        for (const entry of own) strings.add(entry);
      }
      return strings;
    }
    case 'repeat': {
      if (node.max === Number.POSITIVE_INFINITY || node.max > 4) return undefined;
      const one = exactOf(node.node);
      if (one === undefined) return undefined;
      const strings = new Set<string>();
      let times: ReadonlySet<string> | undefined = new Set(['']);
      for (let count = 0; count <= node.max && times !== undefined; count += 1) {
        if (count >= node.min) for (const entry of times) strings.add(entry);
        if (strings.size > MAX_EXACT) return undefined;
        times = product(times, one);
      }
      return times === undefined ? undefined : strings;
    }
  }
}

function product(
  left: ReadonlySet<string> | undefined,
  right: ReadonlySet<string> | undefined,
): ReadonlySet<string> | undefined {
  if (left === undefined || right === undefined || left.size * right.size > MAX_EXACT) return undefined;
  const strings = new Set<string>();
  for (const a of left) for (const b of right) strings.add(a + b);
  return strings;
}

/**
 * The most characters any match of the node has before the first occurrence, inside the match,
 * of one of `literals`: Infinity when some match may hold none (or the reader cannot tell).
 */
function offsetBound(node: Node, literals: readonly string[]): number {
  const exact = exactOf(node);
  if (exact !== undefined) {
    let bound = 0;
    for (const text of exact) {
      let first = Number.POSITIVE_INFINITY;
      for (const literal of literals) {
        const at = text.indexOf(literal);
        if (at !== -1 && at < first) first = at;
      }
      bound = Math.max(bound, first);
    }
    return bound;
  }
  switch (node.kind) {
    case 'alt':
      return Math.max(...node.branches.map((branch) => offsetBound(branch, literals)));
    case 'repeat':
      // The first repetition holds one, when each does.
      return node.min >= 1 ? offsetBound(node.node, literals) : Number.POSITIVE_INFINITY;
    case 'seq': {
      // An occurrence inside item i, or inside a run of items i..j whose strings are known, lies
      // at most the longest match of the items before it, plus its offset there.
      let bound = Number.POSITIVE_INFINITY;
      let before = 0;
      node.items.forEach((item, from) => {
        bound = Math.min(bound, before + offsetBound(item, literals));
        for (let to = from + 2; to <= node.items.length; to += 1) {
          const run: Node = { kind: 'seq', items: node.items.slice(from, to) };
          if (exactOf(run) === undefined) break;
          bound = Math.min(bound, before + offsetBound(run, literals));
        }
        before += maxLength(item);
      });
      return bound;
    }
    default:
      return Number.POSITIVE_INFINITY;
  }
}

/**
 * The most characters a match of `pattern` can have before the first of `literals` it contains
 * (`undefined`: no bound known). The first occurrence of any of them in a text, at position p, then
 * says no match starts before p minus the bound, so the regex may start its search there and find
 * the same leftmost match (features.ts).
 */
export function literalOffsetBound(pattern: RegExp, literals: readonly string[]): number | undefined {
  if (/[iuvxy]/.test(pattern.flags) || literals.length === 0) return undefined;
  try {
    const bound = offsetBound(new TreeReader(pattern.source).read(), literals);
    return Number.isFinite(bound) ? bound : undefined;
  } catch (error) {
    if (error instanceof Unfollowed) return undefined;
    throw error;
  }
}

/** Each entry's `literalOffsetBound` over its required literals (`undefined`: none, or no bound). */
export function entryOffsetBounds(vocabulary: Vocabulary): Array<number | undefined> {
  const literals = entryLiterals(vocabulary);
  return vocabulary.patterns().map((entry, index) => {
    const own = literals[index];
    return own === undefined ? undefined : literalOffsetBound(entry, own);
  });
}
