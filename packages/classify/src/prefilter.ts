/**
 * The literal prefilter in front of the vocabularies (issue 17: one pass over the text instead of
 * one regex pass per list).
 *
 * Each vocabulary has REQUIRED LITERALS (vocabulary-literals.ts, derived from its patterns by
 * required-literals.ts and kept equal to them by a test): every match of the vocabulary contains
 * one of them. One Aho–Corasick pass over the lower-cased text says which vocabularies have a
 * required literal somewhere in it; only those run their regex, unchanged. A vocabulary whose
 * literals are all absent cannot match, so its answer (`undefined`) is the regex's own: answers
 * and evidence are identical by construction, and the differential test (prefilter.test.ts)
 * checks it over the corpus, the scenarios and fuzzed text.
 *
 * Written here rather than taken from a package: the npm Aho–Corasick packages (e.g.
 * modern-ahocorasick, ahocorasick) return the matches as arrays of objects, and classify needs
 * only one bit per list per call, with no allocation, over a string that is already lower-cased;
 * the DFA below is one flat typed array and a short loop.
 */

/**
 * The longest prefix of a literal the automaton keeps: a text that contains a literal contains
 * its prefix, so a prefix is as sound a requirement, and past this length it is as selective while
 * the automaton (built on the first classify) stays small.
 */
const DEPTH = 10;
const prefixOf = (literal: string): string => literal.slice(0, DEPTH);

/** Literals are read in ASCII; a list with a literal beyond it is run always (never the case). */
const ASCII = 128;

/** A literal the automaton can read: not empty, ASCII, no NUL (column 0 is "any other character"). */
const readable = (literal: string): boolean =>
  literal.length > 0 &&
  [...literal].every((character) => {
    const code = character.charCodeAt(0);
    return code > 0 && code < ASCII;
  });

/** A transition not resolved yet (greater than any row offset). */
const UNSET = 0x7fffffff;

/**
 * One Aho–Corasick automaton over the required literals of many lists: `scan(text)` is one pass
 * that gives a bit mask, bit `i` set when a literal of list `i` occurs in `text`. A list with no
 * requirement has its bit set always.
 *
 * The trie is built on construction (a few thousand steps); the DFA's transitions (the trie's
 * goto with the failure links folded in) are resolved the first time a scan takes them and kept,
 * so the first classify does not pay for a full table it mostly never visits.
 */
export class LiteralScanner {
  /** Each ASCII character's column; 0 for a character no literal contains. */
  private readonly columnOf = new Uint8Array(ASCII);
  private readonly columns: number;
  /** The trie: `trie[state × columns + column]` is the child state, or -1. */
  private readonly trie: Int32Array;
  /** Each trie state's parent and the column that leads to it from there. */
  private readonly parent: Int32Array;
  private readonly parentColumn: Int32Array;
  /** The lists whose literal ends exactly at each state. */
  private readonly ends: Int32Array;
  /** Resolved lazily (-1 until then): each state's failure state, and the lists whose literal ends there or at a suffix. */
  private readonly failure: Int32Array;
  private readonly output: Int32Array;
  /**
   * The DFA: `delta[state × columns + column]` is the next state's row offset (state × columns),
   * bit-inverted (negative) when a literal ends at that state; UNSET until first taken.
   */
  private readonly delta: Int32Array;
  /** The lists that have no requirement: their bits are always set. */
  readonly always: number;

  /** `lists[i]` is list i's literals, or `undefined` when it has no requirement. At most 31 lists. */
  constructor(lists: ReadonlyArray<readonly string[] | undefined>) {
    if (lists.length > 31) throw new RangeError('LiteralScanner: at most 31 lists');
    let always = 0;
    let columns = 1;
    let length = 1;
    const kept: Array<readonly string[] | undefined> = lists.map((list, index) => {
      if (list === undefined || list.length === 0 || !list.every(readable)) {
        always |= 1 << index;
        return undefined;
      }
      const prefixes = list.map(prefixOf);
      for (const literal of prefixes) {
        length += literal.length;
        for (let at = 0; at < literal.length; at += 1) {
          const code = literal.charCodeAt(at);
          if (this.columnOf[code] === 0) this.columnOf[code] = columns++;
        }
      }
      return prefixes;
    });
    this.always = always;
    this.columns = columns;
    // At most one state per literal character, plus the root.
    this.trie = new Int32Array(length * columns).fill(-1);
    this.parent = new Int32Array(length);
    this.parentColumn = new Int32Array(length);
    this.ends = new Int32Array(length);
    let states = 1;
    kept.forEach((list, index) => {
      for (const literal of list ?? []) {
        let state = 0;
        for (let at = 0; at < literal.length; at += 1) {
          const column = this.columnOf[literal.charCodeAt(at)] as number;
          const cell = state * columns + column;
          if ((this.trie[cell] as number) === -1) {
            this.trie[cell] = states;
            this.parent[states] = state;
            this.parentColumn[states] = column;
            states += 1;
          }
          state = this.trie[cell] as number;
        }
        this.ends[state] = (this.ends[state] as number) | (1 << index);
      }
    });
    this.failure = new Int32Array(states).fill(-1);
    this.output = new Int32Array(states).fill(-1);
    this.failure[0] = 0;
    this.output[0] = 0;
    this.delta = new Int32Array(states * columns).fill(UNSET);
  }

  /** The lists that may match `text`: one pass, no allocation. */
  scan(text: string): number {
    const { columnOf, delta, output, columns } = this;
    let offset = 0;
    let found = this.always;
    for (let at = 0; at < text.length; at += 1) {
      const code = text.charCodeAt(at);
      const cell = offset + (code < ASCII ? (columnOf[code] as number) : 0);
      let entry = delta[cell] as number;
      if (entry === UNSET) entry = this.resolve(cell);
      if (entry < 0) {
        offset = ~entry;
        found |= output[offset / columns] as number;
      } else offset = entry;
    }
    return found;
  }

  /** Resolves and keeps the DFA transition of one cell (state × columns + column). */
  private resolve(cell: number): number {
    const { columns } = this;
    const target = this.step(Math.floor(cell / columns), cell % columns);
    const offset = target * columns;
    const entry = this.outputOf(target) === 0 ? offset : ~offset;
    this.delta[cell] = entry;
    return entry;
  }

  /** The DFA's next state from `state` on `column`. */
  private step(state: number, column: number): number {
    const cell = state * this.columns + column;
    const entry = this.delta[cell] as number;
    if (entry !== UNSET) return (entry < 0 ? ~entry : entry) / this.columns;
    const child = this.trie[cell] as number;
    if (child !== -1) return child;
    return state === 0 ? 0 : this.step(this.failureOf(state), column);
  }

  /** The state of the longest proper suffix of `state`'s string that is in the trie. */
  private failureOf(state: number): number {
    const known = this.failure[state] as number;
    if (known !== -1) return known;
    const parent = this.parent[state] as number;
    const failure = parent === 0 ? 0 : this.step(this.failureOf(parent), this.parentColumn[state] as number);
    this.failure[state] = failure;
    return failure;
  }

  /** The lists whose literal ends at `state`: its own, and its failure state's. */
  private outputOf(state: number): number {
    const known = this.output[state] as number;
    if (known !== -1) return known;
    const output = (this.ends[state] as number) | this.outputOf(this.failureOf(state));
    this.output[state] = output;
    return output;
  }
}
