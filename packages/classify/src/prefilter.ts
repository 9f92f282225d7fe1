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

import { scanWasmBytes } from './scan-wasm.ts';

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

/** A literal the automaton can read: not empty, ASCII, no NUL (the byte any other character reads as). */
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
 * is bytes of 0x80 and above (read as 0, a byte no literal has), so a literal, all ASCII, occurs in the
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
  const written = encoded(text, bytes);
  for (let at = written; at < written + LANES - 1; at += 1) bytes[at] = 0;
  return written;
}

/** `text` into `into` (room enough: 3 bytes a code unit) as UTF-8 with bytes past ASCII made 0; returns the bytes written. */
function encoded(text: string, into: Uint8Array): number {
  encoder ??= new TextEncoder();
  const { written } = encoder.encodeInto(text, into);
  // A non-ASCII text's bytes past ASCII as 0 (the DFA's rows hold ASCII bytes only): a pass over
  // bytes, only for such a text, not the one-byte-a-character copy `encodeInto` replaced.
  if (written !== text.length) {
    for (let at = 0; at < written; at += 1) if ((into[at] as number) >= ASCII) into[at] = 0;
  }
  return written;
}

/**
 * A DFA row's cells: one per byte the scan reads. `bytesOf` gives only ASCII bytes (any other is
 * made 0), so a row is 128 cells and a cell is `(row << 7) | byte`: no column lookup per byte
 * (see `LiteralScanner.delta`).
 */
const ROW_BITS = 7;

/**
 * A transition not resolved yet: odd (a step tests one bit for "more than a load"), and above
 * every entry `(row << 1) | hit`, as rows stay under MAX_ROWS.
 */
const UNSET = 0xffff;

/** Rows (so states: a state has at most one row) a Uint16 entry `(row << 1) | hit` can name. */
const MAX_ROWS = 0x7fff;

/** A state that has no DFA row yet. */
const NO_ROW = 0xffff;

/** The text bytes a WebAssembly memory is laid out for first (1024 characters of 3 bytes; grown on need). */
const FIRST_TEXT_ROOM = 3072;

/** The rows the DFA table is made with (it grows by half when a scan reaches more states). */
const FIRST_ROWS = 64;

/** A trie state that has no failure state resolved yet. */
const NO_FAILURE = 0xffff;

/**
 * The scans a scanner walks in JavaScript before it moves to WebAssembly (`LiteralScanner.scan`).
 * Compiling and instantiating scan.wat costs ~0.3 ms once a process (measured: 0.1 ms the first
 * module of a process, 0.15 ms this one, 0.07 ms the instance), which the WebAssembly walk's
 * ~0.25 µs a scan pays back only after ~1,500 scans: a process that classifies a few failures
 * never pays it, one that classifies many pays it once.
 */
export const WASM_AFTER = 256;

/**
 * scan.wat's module, compiled when the first scanner moves to WebAssembly (never at import), once a
 * process: `null` where the runtime refuses to compile WebAssembly at run time (workerd, a page
 * whose Content-Security-Policy has no 'wasm-unsafe-eval': `new WebAssembly.Module` throws
 * there), and then every scanner walks in JavaScript (`lanes`, `oneLane`).
 */
let scanModule: WebAssembly.Module | null | undefined;

function compiledScan(): WebAssembly.Module | null {
  if (scanModule === undefined) {
    try {
      scanModule = new WebAssembly.Module(scanWasmBytes());
    } catch {
      scanModule = null;
    }
  }
  return scanModule;
}

/** scan.wat's exports: see there. */
type WasmScan = (
  at: number,
  end: number,
  table: number,
  noted: number,
  state: number,
  count: number,
) => number;
type WasmLanes = (
  p0: number,
  p1: number,
  p2: number,
  p3: number,
  steps: number,
  table: number,
  noted: number,
  at: number,
  count: number,
  s0: number,
  s1: number,
  s2: number,
  s3: number,
) => number;

/** Where scan.wat's memory holds the text's bytes (after the pause record, addresses 0–39). */
const TEXT_AT = 48;
/** A WebAssembly page. */
const PAGE = 65_536;

/**
 * A scanner's WebAssembly instance and its memory's layout: the text's bytes from TEXT_AT
 * (`textRoom` of them), the hits after (8 bytes a text byte: at most one hit a byte, two i32s), the
 * DFA table last, so that it grows in place (`LiteralScanner.growTable`); more text room moves it.
 */
interface WasmScanner {
  readonly memory: WebAssembly.Memory;
  readonly scan: WasmScan;
  readonly lanes: WasmLanes;
  textRoom: number;
  notedAt: number;
  tableAt: number;
  /** Views over the memory, made again whenever it grows (growing detaches the old buffer). */
  text: Uint8Array;
  words: Int32Array;
}

/**
 * One Aho–Corasick automaton over the required literals of many lists: `scan(text, into)` is one
 * pass that sets bit `i % 32` of `into[i >> 5]` when a literal of list `i` occurs in `text`. A list
 * with no requirement has its bit set always.
 *
 * The trie is built on construction (a few thousand steps, kept as child and sibling links: a
 * dense goto table was 120 KB for the few resolutions that read it); the DFA's transitions (the
 * trie's goto with the failure links folded in) are resolved the first time a scan takes them and
 * kept, so the first classify does not pay for a full table it mostly never visits. The DFA is one
 * Uint16Array of 128-cell rows indexed by byte (only the rows a scan reaches are made): an entry
 * is the next state's row shifted left by one, with bit 0 marking a step into a state where a
 * literal ends.
 */
export class LiteralScanner {
  /** How many 32-bit words a mask of the lists takes. */
  readonly words: number;
  /** The trie: each state's first child and next sibling (0: none; the root is no one's child). */
  private readonly firstChild: Uint16Array;
  private readonly nextSibling: Uint16Array;
  /** Each trie state's parent and the byte that leads to it from there. */
  private readonly parent: Uint16Array;
  private readonly parentByte: Uint8Array;
  /** Each state's failure state, resolved lazily (NO_FAILURE until then). */
  private readonly failure: Uint16Array;
  /**
   * Whether a state's `output` is resolved. Before, `output` holds the lists whose literal ends
   * exactly at the state; after, also its failure state's (so every literal that ends there).
   */
  private readonly outputKnown: Uint8Array;
  private readonly output: Int32Array;
  /**
   * The DFA: `delta[(row << 7) | byte]` is the next state's row × 2, plus 1 when a literal ends
   * at that state; UNSET until first taken. A state gets a row when a transition into it is first
   * resolved (the root has row 0), and the table grows by half: a scan reaches a few hundred
   * of the states, so the table holds those rows, not all of them. Indexed by byte rather than by
   * a column of the bytes the literals use (36 of them today): a step saves the column load, and
   * 16-bit entries keep a 128-cell row (256 bytes) near the 36 32-bit cells (144 bytes) it had.
   */
  private delta: Uint16Array;
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

  /**
   * The WebAssembly walk (scan.wat) and its memory, once the scanner moved to it; until then, and
   * where the runtime refuses to compile it, scans walk in JavaScript.
   */
  private wasm: WasmScanner | undefined;
  /** The scans left to walk in JavaScript before moving to WebAssembly (0: moved, or never will). */
  private jsScansLeft: number;

  /**
   * `lists[i]` is list i's literals, or `undefined` when it has no requirement. `webAssemblyAfter`:
   * the scans walked in JavaScript before moving to WebAssembly (WASM_AFTER; 0 moves at once,
   * Infinity never: the tests compare the two walks).
   */
  constructor(
    lists: ReadonlyArray<readonly string[] | undefined>,
    options: { webAssemblyAfter?: number } = {},
  ) {
    const words = Math.max(1, Math.ceil(lists.length / 32));
    this.words = words;
    this.always = new Int32Array(words);
    this.firstAt = new Int32Array(lists.length);
    // The literals' bytes as dense columns, only for the trie's insertion table below.
    const columnOf = new Uint8Array(ASCII);
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
          if (columnOf[code] === 0) columnOf[code] = columns++;
        }
      }
      return prefixes;
    });
    // At most one state per literal character, plus the root (cut to the states made, below).
    const firstChild = new Uint16Array(length);
    const nextSibling = new Uint16Array(length);
    const parent = new Uint16Array(length);
    const parentByte = new Uint8Array(length);
    const ends = new Int32Array(length * words);
    // A dense goto table while inserting (one load a character instead of a walk along the
    // siblings, up to 30 at the root), dropped after: only the links are kept.
    const trie = new Uint16Array(length * columns);
    let states = 1;
    kept.forEach((list, index) => {
      for (const literal of list ?? []) {
        let state = 0;
        for (let at = 0; at < literal.length; at += 1) {
          const code = literal.charCodeAt(at);
          const column = columnOf[code] as number;
          let child = trie[state * columns + column] as number;
          if (child === 0) {
            child = states;
            trie[state * columns + column] = child;
            states += 1;
            parent[child] = state;
            parentByte[child] = code;
            nextSibling[child] = firstChild[state] as number;
            firstChild[state] = child;
          }
          state = child;
        }
        const word = state * words + (index >> 5);
        ends[word] = (ends[word] as number) | (1 << (index & 31));
      }
    });
    // Too many states for a row number in a Uint16 entry: every list runs always (sound, only
    // slower; a test keeps the real vocabularies well under it).
    if (states > MAX_ROWS) {
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
    this.parentByte = parentByte.slice(0, states);
    this.output = ends.slice(0, states * words);
    this.failure = new Uint16Array(states).fill(NO_FAILURE);
    this.failure[0] = 0;
    this.outputKnown = new Uint8Array(states);
    this.outputKnown[0] = 1; // The root: no literal is empty.
    this.rowOf = new Uint16Array(states).fill(NO_ROW);
    this.rowOf[0] = 0;
    const capacity = Math.min(states, FIRST_ROWS);
    this.stateOf = new Uint16Array(capacity);
    this.delta = new Uint16Array(capacity << ROW_BITS).fill(UNSET);
    this.jsScansLeft = options.webAssemblyAfter ?? WASM_AFTER;
    if (this.jsScansLeft === 0) this.toWebAssembly();
  }

  /**
   * Moves the scans to scan.wat's walk, where the runtime compiles it: an instance, its memory laid
   * out, and the table resolved so far copied in (the same cells: both walks read one format).
   */
  private toWebAssembly(): void {
    this.jsScansLeft = 0;
    const module = compiledScan();
    if (module === null) return;
    const table = this.delta;
    try {
      const { exports } = new WebAssembly.Instance(module);
      const wasm: WasmScanner = {
        memory: exports.memory as WebAssembly.Memory,
        scan: exports.scan as WasmScan,
        lanes: exports.lanes as WasmLanes,
        textRoom: 0,
        notedAt: TEXT_AT,
        tableAt: TEXT_AT,
        text: new Uint8Array(0),
        words: new Int32Array(0),
      };
      this.delta = new Uint16Array(0);
      this.place(wasm, FIRST_TEXT_ROOM, table.length);
      this.delta.set(table);
      this.wasm = wasm;
    } catch {
      // Compiled, but the instance or its memory was refused (out of memory: a RangeError): this
      // scanner walks in JavaScript, over its table as it was.
      this.delta = table;
    }
  }

  /**
   * Back to the JavaScript walk for good, the table resolved so far copied out of the memory:
   * where the memory would not grow (a scan that met a longer text or a new row), or the walk
   * trapped. Nothing the failed scan did is lost but its hits, and `scan` walks the text again.
   */
  private leaveWebAssembly(): void {
    this.delta = this.delta.slice();
    this.wasm = undefined;
  }

  /**
   * Lays out the WebAssembly memory for `textRoom` text bytes and a table of `cells` entries,
   * growing the memory when short, moving the table when the text room grew and filling its new
   * cells with UNSET; makes the views (`delta` among them) again.
   */
  private place(wasm: WasmScanner, textRoom: number, cells: number): void {
    const { memory } = wasm;
    const oldAt = wasm.tableAt;
    const oldCells = this.delta.length;
    const room = Math.ceil(textRoom / 8) * 8;
    const notedAt = TEXT_AT + room;
    // Hits: at most one a lane a step, so the text's bytes plus the lanes' overlap, two i32s each.
    const tableAt = notedAt + 8 * (room + LANES * DEPTH);
    const need = tableAt + 2 * cells;
    if (need > memory.buffer.byteLength) memory.grow(Math.ceil((need - memory.buffer.byteLength) / PAGE));
    const { buffer } = memory;
    if (tableAt !== oldAt && oldCells > 0)
      new Uint8Array(buffer).copyWithin(tableAt, oldAt, oldAt + 2 * oldCells);
    wasm.textRoom = room;
    wasm.notedAt = notedAt;
    wasm.tableAt = tableAt;
    wasm.text = new Uint8Array(buffer, TEXT_AT, room);
    wasm.words = new Int32Array(buffer);
    this.delta = new Uint16Array(buffer, tableAt, cells);
    this.delta.fill(UNSET, oldCells);
  }

  /** The number of trie states (for the tests that keep the table small). */
  get states(): number {
    return this.parent.length;
  }

  /** The DFA table's bytes as scans have grown it (for the tests and the report on its size). */
  get tableBytes(): number {
    return this.delta.byteLength;
  }

  /** Whether scans walk in WebAssembly (scan.wat) rather than in JavaScript. */
  get webAssembly(): boolean {
    return this.wasm !== undefined;
  }

  /** The WebAssembly memory's bytes (text, hits and table), 0 when scans walk in JavaScript. */
  get memoryBytes(): number {
    return this.wasm === undefined ? 0 : this.wasm.memory.buffer.byteLength;
  }

  /**
   * Sets in `into` (`words` words, cleared here) the lists that may match `source`: one pass over
   * its UTF-8 bytes (`bytesOf`), no allocation but the buffers' growth. Literals are ASCII: a byte
   * past ASCII (read as 0) leads back to the root, as a character no literal has does.
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
    if (this.wasm !== undefined) {
      try {
        return this.scanWasm(this.wasm, source, into);
      } catch {
        this.leaveWebAssembly();
        for (let word = 0; word < words; word += 1) into[word] = always[word] as number;
      }
    }
    if (this.jsScansLeft > 0 && --this.jsScansLeft === 0) this.toWebAssembly();
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
      this.hit(noted[at] as number, into, noted[at + 1] as number);
    }
    // Only an ASCII text's UTF-8 has one byte a UTF-16 code unit (any other unit takes 2–3 bytes).
    return length === source.length;
  }

  /**
   * `scan` by scan.wat's walk: the text's bytes into the WebAssembly memory, one call that walks
   * them (resuming after each transition it met unresolved, once JavaScript resolved it), then the
   * hits noted there. One lane: the walk costs ~1 ns a byte there against ~1.5 in the four
   * JavaScript lanes, where V8 checks every typed-array load's bounds.
   */
  private scanWasm(wasm: WasmScanner, source: string, into: Int32Array): boolean {
    const room = 3 * source.length + LANES;
    if (wasm.textRoom < room) this.place(wasm, Math.max(room, 2 * wasm.textRoom), this.delta.length);
    const { text } = wasm;
    const length = encoded(source, text);
    let count: number;
    if (length < LANES * DEPTH * 2) {
      const end = TEXT_AT + length;
      count = wasm.scan(TEXT_AT, end, wasm.tableAt, wasm.notedAt, 0, 0);
      while (count === -1) {
        // Paused (scan.wat): the byte's address, the unresolved cell, the numbers noted so far.
        // Read before resolving: a new row can grow the memory, which detaches this view.
        const paused = wasm.words;
        const at = paused[0] as number;
        const cell = paused[1] as number;
        const noted = paused[2] as number;
        this.resolve(cell);
        count = wasm.scan(at, end, wasm.tableAt, wasm.notedAt, cell & ~(ASCII - 1), noted);
      }
    } else {
      // As `lanes` (the same split and the same zeros read past the end).
      for (let at = length; at < length + LANES - 1; at += 1) text[at] = 0;
      const quarter = Math.ceil(length / LANES);
      const steps = quarter + DEPTH - 1;
      const p1 = TEXT_AT + quarter - (DEPTH - 1);
      const p2 = p1 + quarter;
      const p3 = p2 + quarter;
      count = wasm.lanes(TEXT_AT, p1, p2, p3, steps, wasm.tableAt, wasm.notedAt, 0, 0, 0, 0, 0, 0);
      while (count === -1) {
        // Paused (scan.wat): the four states, the four cells, the step and the numbers noted.
        // The cells read before resolving any: a new row can grow the memory, detaching this view.
        const paused = wasm.words;
        const cells = [paused[4], paused[5], paused[6], paused[7]] as number[];
        for (const cell of cells) if (this.delta[cell] === UNSET) this.resolve(cell);
        const resumed = wasm.words;
        count = wasm.lanes(
          TEXT_AT,
          p1,
          p2,
          p3,
          steps,
          wasm.tableAt,
          wasm.notedAt,
          resumed[8] as number,
          resumed[9] as number,
          resumed[0] as number,
          resumed[1] as number,
          resumed[2] as number,
          resumed[3] as number,
        );
      }
    }
    const { words } = wasm;
    const first = wasm.notedAt >> 2;
    for (let at = 0; at < count; at += 2) {
      this.hit(words[first + at] as number, into, (words[first + at + 1] as number) - TEXT_AT);
    }
    return length === source.length;
  }

  /**
   * The text in one lane, resolving transitions as it meets them: notes each hit (entry,
   * position) in `noted` and returns how many numbers it noted.
   */
  private oneLane(text: Uint8Array, length: number, noted: Int32Array): number {
    let count = 0;
    let state = 0;
    for (let at = 0; at < length; at += 1) {
      const cell = state | (text[at] as number);
      let entry = this.delta[cell] as number;
      if (entry === UNSET) entry = this.resolve(cell);
      if ((entry & 1) !== 0) {
        noted[count++] = entry;
        noted[count++] = at;
      }
      state = (entry >> 1) << ROW_BITS;
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
    const { delta, paused } = this;
    const quarter = Math.ceil(length / LANES);
    // The last lane starts LANES − 1 characters or fewer before a whole quarter from the end, so
    // it reads up to LANES − 1 characters past the text: `bytesOf`'s zeros (byte 0, back to the
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
      const cell0 = state0 | (text[at] as number);
      const cell1 = state1 | (text[from1 + at] as number);
      const cell2 = state2 | (text[from2 + at] as number);
      const cell3 = state3 | (text[from3 + at] as number);
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
      state0 = (entry0 >> 1) << ROW_BITS;
      state1 = (entry1 >> 1) << ROW_BITS;
      state2 = (entry2 >> 1) << ROW_BITS;
      state3 = (entry3 >> 1) << ROW_BITS;
    }
    paused[0] = state0;
    paused[1] = state1;
    paused[2] = state2;
    paused[3] = state3;
    return count;
  }

  /**
   * Adds to `into` the lists whose literal ends at the state a hit's `entry` steps into (its row
   * is `entry >> 1`), at position `at`, and keeps `at` as each one's first position when it is
   * the earliest (the lanes do not step in text order).
   */
  private hit(entry: number, into: Int32Array, at: number): void {
    const { output, words, firstAt } = this;
    const first = (this.stateOf[entry >> 1] as number) * words;
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
  }

  /** Resolves and keeps the DFA transition of one cell (`(row << 7) | byte`). */
  private resolve(cell: number): number {
    const { words } = this;
    const target = this.step(this.stateOf[cell >> ROW_BITS] as number, cell & (ASCII - 1));
    this.resolveOutput(target);
    let any = 0;
    for (let word = 0; word < words; word += 1) any |= this.output[target * words + word] as number;
    const entry = (this.rowFor(target) << 1) | (any === 0 ? 0 : 1);
    this.delta[cell] = entry;
    return entry;
  }

  /** The DFA's next state from `state` on `byte`. */
  private step(state: number, byte: number): number {
    const row = this.rowOf[state] as number;
    const entry = row === NO_ROW ? UNSET : (this.delta[(row << ROW_BITS) | byte] as number);
    if (entry !== UNSET) return this.stateOf[entry >> 1] as number;
    let child = this.firstChild[state] as number;
    while (child !== 0 && this.parentByte[child] !== byte) child = this.nextSibling[child] as number;
    if (child !== 0) return child;
    return state === 0 ? 0 : this.step(this.failureOf(state), byte);
  }

  /** The row of `state`, made (growing the table when full) if it has none yet. */
  private rowFor(state: number): number {
    const known = this.rowOf[state] as number;
    if (known !== NO_ROW) return known;
    const row = this.rows;
    if (row === this.stateOf.length) {
      const capacity = Math.min(this.rowOf.length, row + (row >> 1));
      // The table first: where the memory will not grow (`place` throws), nothing has changed.
      if (this.wasm !== undefined) this.place(this.wasm, this.wasm.textRoom, capacity << ROW_BITS);
      else {
        const delta = new Uint16Array(capacity << ROW_BITS).fill(UNSET);
        delta.set(this.delta);
        this.delta = delta;
      }
      const stateOf = new Uint16Array(capacity);
      stateOf.set(this.stateOf);
      this.stateOf = stateOf;
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
    const failure = parent === 0 ? 0 : this.step(this.failureOf(parent), this.parentByte[state] as number);
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
