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
 * The longest literal the automaton keeps (a longer one is cut to its prefix: a text that contains
 * a literal contains its prefix, so a prefix is as sound a requirement). The generated table keeps
 * each long literal as its rarest DEPTH-long window instead (required-literals.ts `windowOf`), so
 * nothing of it is cut here. Past this length a literal is as selective while
 * the automaton (built on the first classify) stays small.
 */
export const DEPTH = 10;
const prefixOf = (literal: string): string => literal.slice(0, DEPTH);

/** How many lanes a long text is scanned in (`scan`). */
const LANES = 4;

/** Literals are read in ASCII; a list with a literal beyond it is run always (never the case). */
const ASCII = 128;

/** A literal the automaton can read: not empty, ASCII, no NUL (column 0 is "any other byte"). */
function readable(literal: string): boolean {
  if (literal.length === 0) return false;
  for (let at = 0; at < literal.length; at += 1) {
    const code = literal.charCodeAt(at);
    if (code === 0 || code >= ASCII) return false;
  }
  return true;
}

/** The hits a scan notes (entry and position, in pairs), reused. */
let hits = new Int32Array(0);

/**
 * The scanned text as UTF-8 (reused): an ASCII character is its own byte, any other character
 * is bytes of 0x80 and above (column 0, as in `columnOf`), so a literal, all ASCII, occurs in the
 * bytes exactly where it occurs in the text. Loading a byte from here costs well under half a
 * `charCodeAt` (which checks the string's representation on every call): on the bench's messages,
 * reading each character of the text with `charCodeAt` took 590 ns a message, filling this with
 * `encodeInto` and reading it 260 ns.
 */
let bytes = new Uint8Array(0);
/** Fills `bytes` (built on the first scan, never at import). */
let encoder: TextEncoder | undefined;

/**
 * `text` into `bytes` as UTF-8 (grown when short: a UTF-16 code unit is at most 3 bytes), followed
 * by LANES − 1 zeros, which the last lane reads past the end (`lanes`); returns how many bytes the
 * text took. An ASCII text takes one byte a character, so positions in the bytes are positions
 * in the text; any other text takes more, and positions in it are not (`scan` says so). One
 * `encodeInto` either way: a copy by hand of a non-ASCII text, one byte a character, cost more
 * than the scan itself (the curly apostrophe is common in providers' wordings).
 */
function bytesOf(text: string): number {
  const room = 3 * text.length + LANES;
  if (bytes.length < room) bytes = new Uint8Array(Math.max(room, 2 * bytes.length, 1024));
  encoder ??= new TextEncoder();
  const { written } = encoder.encodeInto(text, bytes);
  for (let at = written; at < written + LANES - 1; at += 1) bytes[at] = 0;
  return written;
}

/**
 * A transition not resolved yet (odd, and above any row offset: the table must stay under it; a
 * small integer to V8, as every entry is).
 */
const UNSET = 0x3fffffff;

/** A state that has no DFA row yet. */
const NO_ROW = 0xffff;

/** The rows the DFA table is made with (it doubles when a scan reaches more states). */
const FIRST_ROWS = 64;

/** A trie state that has no failure state resolved yet. */
const NO_FAILURE = 0xffff;

/**
 * One Aho–Corasick automaton over the required literals of many lists: `scan(text, into)` is one
 * pass that sets bit `i % 32` of `into[i >> 5]` when a literal of list `i` occurs in `text`. A list
 * with no requirement has its bit set always.
 *
 * The trie is built on construction (a few thousand steps, kept as child and sibling links: a
 * dense goto table was 120 KB for the few resolutions that read it); the DFA's transitions (the
 * trie's goto with the failure links folded in) are resolved the first time a scan takes them and
 * kept, so the first classify does not pay for a full table it mostly never visits. The DFA is one
 * Int32Array of row offsets (only the rows a scan reaches are made), with bit 0 marking a step
 * into a state where a literal ends (rows are an even number of cells apart, so bit 0 is free).
 */
export class LiteralScanner {
  /** How many 32-bit words a mask of the lists takes. */
  readonly words: number;
  /** Each byte's column; 0 for a byte no literal contains (every byte ≥ 0x80). */
  private readonly columnOf = new Uint8Array(256);
  /** Cells a DFA row takes: the columns used, rounded up to even (see the class comment). */
  private readonly columns: number;
  /** The trie: each state's first child and next sibling (0: none; the root is no one's child). */
  private readonly firstChild: Uint16Array;
  private readonly nextSibling: Uint16Array;
  /** Each trie state's parent and the column that leads to it from there. */
  private readonly parent: Uint16Array;
  private readonly parentColumn: Uint8Array;
  /** Each state's failure state, resolved lazily (NO_FAILURE until then). */
  private readonly failure: Uint16Array;
  /**
   * Whether a state's `output` is resolved. Before, `output` holds the lists whose literal ends
   * exactly at the state; after, also its failure state's (so every literal that ends there).
   */
  private readonly outputKnown: Uint8Array;
  private readonly output: Int32Array;
  /**
   * The DFA: `delta[row × columns + column]` is the next state's row offset (its row × columns),
   * plus 1 when a literal ends at that state; UNSET until first taken. A state gets a row when a
   * transition into it is first resolved (the root has row 0), and the table grows by doubling: a
   * scan reaches a few hundred of the states, so the table holds those rows, not all of them.
   */
  private delta: Int32Array;
  /** Each state's row (NO_ROW until it has one), and each row's state. */
  private readonly rowOf: Uint16Array;
  private stateOf: Uint16Array;
  private rows = 1;
  /**
   * Where `lanes` paused on an unresolved transition, and where it starts: the four lanes' states,
   * their cells, the step and the count of numbers noted (all 0: from the start).
   */
  private readonly paused = new Int32Array(10);
  /** The lists that have no requirement: their bits are always set. */
  private readonly always: Int32Array;
  /**
   * After a scan that returned true: for each list whose bit it set by a hit, the position of the
   * last character of that list's first literal (prefix) occurrence, so the occurrence starts at
   * least DEPTH − 1 before it. A list with no requirement keeps 0.
   */
  readonly firstAt: Int32Array;

  /** `lists[i]` is list i's literals, or `undefined` when it has no requirement. */
  constructor(lists: ReadonlyArray<readonly string[] | undefined>) {
    const words = Math.max(1, Math.ceil(lists.length / 32));
    this.words = words;
    this.always = new Int32Array(words);
    this.firstAt = new Int32Array(lists.length);
    let columns = 1;
    let length = 1;
    const kept: Array<readonly string[] | undefined> = lists.map((list, index) => {
      if (list === undefined || list.length === 0 || !list.every(readable)) {
        this.always[index >> 5] = (this.always[index >> 5] as number) | (1 << (index & 31));
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
    columns += columns & 1;
    this.columns = columns;
    // At most one state per literal character, plus the root (cut to the states made, below).
    const firstChild = new Uint16Array(length);
    const nextSibling = new Uint16Array(length);
    const parent = new Uint16Array(length);
    const parentColumn = new Uint8Array(length);
    const ends = new Int32Array(length * words);
    // A dense goto table while inserting (one load a character instead of a walk along the
    // siblings, up to 30 at the root), dropped after: only the links are kept.
    const trie = new Uint16Array(length * columns);
    let states = 1;
    kept.forEach((list, index) => {
      for (const literal of list ?? []) {
        let state = 0;
        for (let at = 0; at < literal.length; at += 1) {
          const column = this.columnOf[literal.charCodeAt(at)] as number;
          let child = trie[state * columns + column] as number;
          if (child === 0) {
            child = states;
            trie[state * columns + column] = child;
            states += 1;
            parent[child] = state;
            parentColumn[child] = column;
            nextSibling[child] = firstChild[state] as number;
            firstChild[state] = child;
          }
          state = child;
        }
        const word = state * words + (index >> 5);
        ends[word] = (ends[word] as number) | (1 << (index & 31));
      }
    });
    // Too many states for a Uint16 state number (or a row offset below UNSET): every list runs
    // always (sound, only slower; a test keeps the real vocabularies well under it).
    if (states >= NO_ROW || states * columns >= UNSET) {
      for (let index = 0; index < lists.length; index += 1) {
        this.always[index >> 5] = (this.always[index >> 5] as number) | (1 << (index & 31));
      }
      states = 1;
      firstChild[0] = 0;
      ends.fill(0);
    }
    this.firstChild = firstChild.slice(0, states);
    this.nextSibling = nextSibling.slice(0, states);
    this.parent = parent.slice(0, states);
    this.parentColumn = parentColumn.slice(0, states);
    this.output = ends.slice(0, states * words);
    this.failure = new Uint16Array(states).fill(NO_FAILURE);
    this.failure[0] = 0;
    this.outputKnown = new Uint8Array(states);
    this.outputKnown[0] = 1; // The root: no literal is empty.
    this.rowOf = new Uint16Array(states).fill(NO_ROW);
    this.rowOf[0] = 0;
    const capacity = Math.min(states, FIRST_ROWS);
    this.stateOf = new Uint16Array(capacity);
    this.delta = new Int32Array(capacity * columns).fill(UNSET);
  }

  /** The number of trie states (for the tests that keep the table small). */
  get states(): number {
    return this.parent.length;
  }

  /**
   * Sets in `into` (`words` words, cleared here) the lists that may match `source`: one pass over
   * its UTF-8 bytes (`bytesOf`), no allocation but the buffers' growth. Literals are ASCII: a byte
   * past ASCII (column 0) leads back to the root, as a character no literal has does.
   *
   * A DFA step waits on the previous one's table load, so a long text is read as four lanes
   * stepped together (four independent chains the CPU overlaps): lane k reads from k quarters in,
   * less DEPTH − 1 characters, for a quarter plus DEPTH − 1 characters. Every kept literal is at
   * most DEPTH long, so each occurrence lies whole inside some lane; lanes overlap, which only
   * notes a hit twice. (Bytes and characters are one here: a literal is ASCII, one byte a character.)
   *
   * Returns whether `firstAt` holds character positions in `source`: true for an ASCII text; for
   * any other, its positions are byte positions, which can lie past the characters' (a search must
   * then start at 0: features.ts `searchStart`).
   */
  scan(source: string, into: Int32Array): boolean {
    // Loops rather than `set`/`fill`: a few words each, where a builtin call costs more than the copy.
    const { always, words } = this;
    for (let word = 0; word < words; word += 1) into[word] = always[word] as number;
    const length = bytesOf(source);
    const text = bytes;
    if (hits.length < 2 * (length + LANES * DEPTH)) hits = new Int32Array(2 * (length + LANES * DEPTH));
    let count: number;
    if (length < LANES * DEPTH * 2) count = this.oneLane(text, length, hits);
    else {
      const { paused } = this;
      for (let at = 0; at < paused.length; at += 1) paused[at] = 0;
      count = this.lanes(text, length, hits);
      // Paused at a transition not resolved yet: resolve it, and go on from there.
      while (count === -1) {
        for (let lane = 0; lane < LANES; lane += 1) {
          const cell = paused[LANES + lane] as number;
          if (this.delta[cell] === UNSET) this.resolve(cell);
        }
        count = this.lanes(text, length, hits);
      }
    }
    const noted = hits;
    for (let at = 0; at < count; at += 2) {
      this.hit((noted[at] as number) - 1, into, noted[at + 1] as number);
    }
    // Only an ASCII text's UTF-8 has one byte a UTF-16 code unit (any other unit takes 2–3 bytes).
    return length === source.length;
  }

  /**
   * The text in one lane, resolving transitions as it meets them: notes each hit (entry,
   * position) in `noted` and returns how many numbers it noted.
   */
  private oneLane(text: Uint8Array, length: number, noted: Int32Array): number {
    const { columnOf } = this;
    let count = 0;
    let state = 0;
    for (let at = 0; at < length; at += 1) {
      const cell = state + (columnOf[text[at] as number] as number);
      let entry = this.delta[cell] as number;
      if (entry === UNSET) entry = this.resolve(cell);
      if ((entry & 1) !== 0) {
        noted[count++] = entry;
        noted[count++] = at;
      }
      state = entry & ~1;
    }
    return count;
  }

  /**
   * The text in four lanes stepped together (see `scan`), over resolved transitions only:
   * notes each hit (entry, position) and returns how many numbers it noted, or -1 on meeting an
   * unresolved one, pausing there (`paused`) for `scan` to resolve it and call again. A step's entry is odd when it needs more than a load (a hit, or UNSET, which
   * is odd), so one test of the four entries keeps the common step to loads and adds.
   */
  private lanes(text: Uint8Array, length: number, noted: Int32Array): number {
    const { columnOf, delta, paused } = this;
    const quarter = Math.ceil(length / LANES);
    // The last lane starts LANES − 1 characters or fewer before a whole quarter from the end, so
    // it reads up to LANES − 1 characters past the text: `bytesOf`'s zeros (column 0, back to the
    // root, where no literal ends), which note no hit.
    const steps = quarter + DEPTH - 1;
    const from1 = quarter - (DEPTH - 1);
    const from2 = from1 + quarter;
    const from3 = from2 + quarter;
    let count = paused[9] as number;
    let state0 = paused[0] as number;
    let state1 = paused[1] as number;
    let state2 = paused[2] as number;
    let state3 = paused[3] as number;
    for (let at = paused[8] as number; at < steps; at += 1) {
      const cell0 = state0 + (columnOf[text[at] as number] as number);
      const cell1 = state1 + (columnOf[text[from1 + at] as number] as number);
      const cell2 = state2 + (columnOf[text[from2 + at] as number] as number);
      const cell3 = state3 + (columnOf[text[from3 + at] as number] as number);
      const entry0 = delta[cell0] as number;
      const entry1 = delta[cell1] as number;
      const entry2 = delta[cell2] as number;
      const entry3 = delta[cell3] as number;
      if (((entry0 | entry1 | entry2 | entry3) & 1) !== 0) {
        if (entry0 === UNSET || entry1 === UNSET || entry2 === UNSET || entry3 === UNSET) {
          // Pause: the lanes' states and cells, the position and the count, for `scan` to resume.
          paused[0] = state0;
          paused[1] = state1;
          paused[2] = state2;
          paused[3] = state3;
          paused[4] = cell0;
          paused[5] = cell1;
          paused[6] = cell2;
          paused[7] = cell3;
          paused[8] = at;
          paused[9] = count;
          return -1;
        }
        if ((entry0 & 1) !== 0) {
          noted[count++] = entry0;
          noted[count++] = at;
        }
        if ((entry1 & 1) !== 0) {
          noted[count++] = entry1;
          noted[count++] = from1 + at;
        }
        if ((entry2 & 1) !== 0) {
          noted[count++] = entry2;
          noted[count++] = from2 + at;
        }
        if ((entry3 & 1) !== 0) {
          noted[count++] = entry3;
          noted[count++] = from3 + at;
        }
      }
      state0 = entry0 & ~1;
      state1 = entry1 & ~1;
      state2 = entry2 & ~1;
      state3 = entry3 & ~1;
    }
    paused[0] = state0;
    paused[1] = state1;
    paused[2] = state2;
    paused[3] = state3;
    return count;
  }

  /**
   * Adds to `into` the lists whose literal ends at the state at row `offset`, at position `at`,
   * and keeps `at` as each one's first position when it is the earliest (the lanes do not step in
   * text order); returns `offset`.
   */
  private hit(offset: number, into: Int32Array, at: number): number {
    const { output, words, firstAt } = this;
    const first = (this.stateOf[offset / this.columns] as number) * words;
    for (let word = 0; word < words; word += 1) {
      const lists = output[first + word] as number;
      if (lists === 0) continue;
      const seen = into[word] as number;
      into[word] = seen | lists;
      for (let rest = lists; rest !== 0; rest &= rest - 1) {
        const bit = rest & -rest;
        const list = (word << 5) | (31 - Math.clz32(bit));
        if ((seen & bit) === 0 || (firstAt[list] as number) > at) firstAt[list] = at;
      }
    }
    return offset;
  }

  /** Resolves and keeps the DFA transition of one cell (state × columns + column). */
  private resolve(cell: number): number {
    const { columns, words } = this;
    const target = this.step(this.stateOf[Math.floor(cell / columns)] as number, cell % columns);
    this.resolveOutput(target);
    let any = 0;
    for (let word = 0; word < words; word += 1) any |= this.output[target * words + word] as number;
    const entry = this.rowFor(target) * columns + (any === 0 ? 0 : 1);
    this.delta[cell] = entry;
    return entry;
  }

  /** The DFA's next state from `state` on `column`. */
  private step(state: number, column: number): number {
    const row = this.rowOf[state] as number;
    const entry = row === NO_ROW ? UNSET : (this.delta[row * this.columns + column] as number);
    if (entry !== UNSET) return this.stateOf[(entry - (entry & 1)) / this.columns] as number;
    let child = this.firstChild[state] as number;
    while (child !== 0 && this.parentColumn[child] !== column) child = this.nextSibling[child] as number;
    if (child !== 0) return child;
    return state === 0 ? 0 : this.step(this.failureOf(state), column);
  }

  /** The row of `state`, made (growing the table when full) if it has none yet. */
  private rowFor(state: number): number {
    const known = this.rowOf[state] as number;
    if (known !== NO_ROW) return known;
    const row = this.rows;
    if (row === this.stateOf.length) {
      const capacity = Math.min(this.rowOf.length, row * 2);
      const stateOf = new Uint16Array(capacity);
      stateOf.set(this.stateOf);
      this.stateOf = stateOf;
      const delta = new Int32Array(capacity * this.columns).fill(UNSET);
      delta.set(this.delta);
      this.delta = delta;
    }
    this.rows = row + 1;
    this.rowOf[state] = row;
    this.stateOf[row] = state;
    return row;
  }

  /** The state of the longest proper suffix of `state`'s string that is in the trie. */
  private failureOf(state: number): number {
    const known = this.failure[state] as number;
    if (known !== NO_FAILURE) return known;
    const parent = this.parent[state] as number;
    const failure = parent === 0 ? 0 : this.step(this.failureOf(parent), this.parentColumn[state] as number);
    this.failure[state] = failure;
    return failure;
  }

  /** Adds to `output[state]` (its own lists) its failure state's: every list whose literal ends there. */
  private resolveOutput(state: number): void {
    if (this.outputKnown[state] === 1) return;
    const failure = this.failureOf(state);
    this.resolveOutput(failure);
    const { output, words } = this;
    for (let word = 0; word < words; word += 1) {
      output[state * words + word] =
        (output[state * words + word] as number) | (output[failure * words + word] as number);
    }
    this.outputKnown[state] = 1;
  }
}
