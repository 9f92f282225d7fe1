/**
 * The WebAssembly walk of the literal scan (scan.wat, compiled into scan-wasm.ts) against the
 * JavaScript one it runs in place of (prefilter.ts `LiteralScanner`):
 * - scan-wasm.ts holds exactly what wabt compiles scan.wat to (`UPDATE_WASM=1` rewrites it);
 * - both walks give the same candidates, the same positions and the same answer on every text:
 *   the corpus and scenarios, fuzzed ASCII and non-ASCII text, and texts that make the table grow
 *   and the text room grow in the middle of a scan;
 * - where the runtime refuses to compile WebAssembly, scanners walk in JavaScript and classify
 *   decides as it does with the WebAssembly walk.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import wabtInit from 'wabt';
import { literalPrefilter } from './features.ts';
import { explainClassification, type ProviderErrorMetadata } from './index.ts';
import { LiteralScanner, WASM_AFTER } from './prefilter.ts';
import { scanWasmBytes } from './scan-wasm.ts';
import { realTexts } from './test-support.ts';
import { REQUIRED_LITERALS } from './vocabulary-literals.ts';

const _root = fileURLToPath(new URL('../../..', import.meta.url));

/** The TypeScript module scan-wasm.ts holds for `bytes` (the generator: this and wabt). */
function scanWasmSource(bytes: Uint8Array): string {
  // Base64 in rows the formatter (biome) keeps as they are: a quarter of the characters (and of
  // the source map's segments) an array of numbers took.
  const base64 = Buffer.from(bytes).toString('base64');
  const rows: string[] = [];
  for (let at = 0; at < base64.length; at += 96) rows.push(`'${base64.slice(at, at + 96)}'`);
  return `// Generated from scan.wat by wabt's wat2wasm: after changing scan.wat, run
// \`UPDATE_WASM=1 npx vitest run src/scan-wasm.test.ts\` in packages/classify (the test fails while
// this differs from what scan.wat compiles to).

/** scan.wat's module in base64. */
const SCAN_WASM =
  ${rows.join(' +\n  ')};

/** scan.wat's module, decoded on call (the first scanner compiles it, never the import). */
export const scanWasmBytes = (): Uint8Array<ArrayBuffer> =>
  Uint8Array.from(atob(SCAN_WASM), (character) => character.charCodeAt(0));
`;
}

/** The real lists, in the prefilter's order (features.ts `literalPrefilter`). */
function realLists(): Array<readonly string[] | undefined> {
  return Object.values(REQUIRED_LITERALS).flatMap((entries) => entries.map((entry) => entry ?? undefined));
}

/** Scans `text` with both walks and expects the same answer, candidates and positions. */
function expectSameScan(wasm: LiteralScanner, js: LiteralScanner, text: string): void {
  const fromWasm = new Int32Array(wasm.words);
  const fromJs = new Int32Array(js.words);
  const positions = wasm.scan(text, fromWasm);
  expect(js.scan(text, fromJs)).toBe(positions);
  expect([...fromWasm], text.slice(0, 200)).toEqual([...fromJs]);
  // The position of every list found (a list not found keeps a former scan's).
  for (let list = 0; list < wasm.firstAt.length; list += 1) {
    if ((((fromJs[list >> 5] as number) >>> (list & 31)) & 1) === 1) {
      expect(wasm.firstAt[list], `list ${list} in ${text.slice(0, 200)}`).toBe(js.firstAt[list]);
    }
  }
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.resetModules();
});

describe('the WebAssembly scan', () => {
  it('scan-wasm.ts is what wabt compiles scan.wat to (UPDATE_WASM=1 rewrites it)', async () => {
    const wabt = await wabtInit();
    const wat = readFileSync(fileURLToPath(new URL('./scan.wat', import.meta.url)), 'utf8');
    const parsed = wabt.parseWat('scan.wat', wat);
    parsed.validate();
    const { buffer } = parsed.toBinary({ write_debug_names: false });
    parsed.destroy();
    const source = scanWasmSource(buffer);
    const path = fileURLToPath(new URL('./scan-wasm.ts', import.meta.url));
    if (process.env.UPDATE_WASM === '1') writeFileSync(path, source);
    expect(readFileSync(path, 'utf8')).toBe(source);
    expect([...scanWasmBytes()]).toEqual([...buffer]);
  });

  it('is what Node scans with after WASM_AFTER scans in JavaScript, the table resolved so far moved in', () => {
    expect(new LiteralScanner([['ab']], { webAssemblyAfter: 0 }).webAssembly).toBe(true);
    const never = new LiteralScanner([['ab']], { webAssemblyAfter: Number.POSITIVE_INFINITY });
    const lists = realLists();
    const moving = new LiteralScanner(lists);
    const js = new LiteralScanner(lists, { webAssemblyAfter: Number.POSITIVE_INFINITY });
    const texts = realTexts({ bodies: true });
    expect(texts.length).toBeGreaterThan(2 * WASM_AFTER);
    texts.forEach((text, index) => {
      expect(moving.webAssembly).toBe(index >= WASM_AFTER);
      expectSameScan(moving, js, text.toLowerCase());
      never.scan(text, new Int32Array(1));
    });
    expect(never.webAssembly).toBe(false);
    expect(never.memoryBytes).toBe(0);
    expect(moving.memoryBytes).toBeGreaterThan(moving.tableBytes);
    // The process's own scanner (features.ts) moves as well.
    const { scanner } = literalPrefilter();
    for (let scan = 0; scan <= WASM_AFTER; scan += 1)
      scanner.scan(texts[scan] as string, new Int32Array(scanner.words));
    expect(scanner.webAssembly).toBe(true);
  });

  it('finds what the JavaScript walk finds on the real lists: corpus, scenarios and fuzzed text', () => {
    const lists = realLists();
    const wasm = new LiteralScanner(lists, { webAssemblyAfter: 0 });
    const js = new LiteralScanner(lists, { webAssemblyAfter: Number.POSITIVE_INFINITY });
    const texts = realTexts({ bodies: true });
    for (const text of texts) {
      expectSameScan(wasm, js, text);
      expectSameScan(wasm, js, text.toLowerCase());
    }
    const literals = lists.flatMap((list) => list ?? []);
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(...literals),
            fc.constantFrom(...texts.filter((text) => text.length < 300)),
            fc.string({ maxLength: 12, unit: 'binary' }),
            fc.string({ maxLength: 12 }),
            fc.constantFrom(' ', 'é', '\u2019', '\u{1f600}', '\ud800', '\u0000', '\u007f'),
          ),
          { maxLength: 40 },
        ),
        fc.boolean(),
        (parts, lower) => {
          const text = parts.join('');
          expectSameScan(wasm, js, lower ? text.toLowerCase() : text);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('finds the same as its table and text room grow within and between scans', () => {
    const letters = (from: string[], minLength: number, maxLength: number) =>
      fc
        .array(fc.constantFrom(...from), { minLength, maxLength, size: 'max' })
        .map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.array(fc.array(letters(['a', 'b', 'c', ' '], 3, 8), { minLength: 1, maxLength: 4, size: 'max' }), {
          minLength: 60,
          maxLength: 90,
          size: 'max',
        }),
        fc.array(letters(['a', 'b', 'c', 'é', ' '], 0, 1500), { minLength: 1, maxLength: 6 }),
        (lists, texts) => {
          const wasm = new LiteralScanner(lists, { webAssemblyAfter: 0 });
          const js = new LiteralScanner(lists, { webAssemblyAfter: Number.POSITIVE_INFINITY });
          for (const text of texts) expectSameScan(wasm, js, text);
          // A text longer than the room laid out first (3072 bytes) moves the table: still the same.
          expectSameScan(wasm, js, texts.join(' ').repeat(3));
          expect(wasm.tableBytes).toBe(js.tableBytes);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('where WebAssembly does not compile', () => {
  it('scanners walk in JavaScript, and classify decides as with the WebAssembly walk', async () => {
    const metadata = (message: string): ProviderErrorMetadata => ({
      provider: 'test',
      origin: 'http',
      statusCode: 429,
      message,
    });
    const messages = realTexts({ bodies: true }).filter((text) => text.length > 40 && text.length < 2000);
    // As workerd and a strict Content-Security-Policy refuse it: the constructor throws.
    const refused = vi.spyOn(WebAssembly, 'Module').mockImplementation(() => {
      throw new WebAssembly.CompileError('WebAssembly.Module(): Wasm code generation disallowed by embedder');
    });
    const fresh = await import('./index.ts');
    const freshFeatures = await import('./features.ts');
    expect(messages.length).toBeGreaterThan(2 * WASM_AFTER);
    // The first Features reads without the prefilter; the next build it, which tries to compile
    // after WASM_AFTER scans.
    for (const message of messages) {
      expect(fresh.explainClassification(metadata(message))).toEqual(
        explainClassification(metadata(message)),
      );
    }
    expect(refused).toHaveBeenCalledTimes(1);
    const { scanner } = freshFeatures.literalPrefilter();
    expect(scanner.webAssembly).toBe(false);
    expect(scanner.memoryBytes).toBe(0);
    const scanned = vi.spyOn(scanner, 'scan');
    for (const message of messages) {
      expect(fresh.explainClassification(metadata(message))).toEqual(
        explainClassification(metadata(message)),
      );
    }
    expect(scanned.mock.calls.length).toBeGreaterThan(messages.length / 2);
    // Chosen once: no second attempt to compile.
    expect(refused).toHaveBeenCalledTimes(1);
  });
});

/**
 * Lists whose automaton has many states (every 3-letter word over a–h: 585), beside one list for
 * each other ASCII character: a walk that strays off the text (e.g. into the pause record at
 * address 0) finds one of those, which no text of a–h holds.
 */
function manyStateLists(): string[][] {
  const lists: string[][] = [];
  for (let code = 1; code < 128; code += 1)
    if (code < 0x61 || code > 0x68) lists.push([String.fromCharCode(code)]);
  const letters = 'abcdefgh';
  for (const a of letters) for (const b of letters) for (const c of letters) lists.push([a + b + c]);
  return lists;
}

/** Texts of a–h (`minLength` to `maxLength` characters), many of them, reaching new states. */
const lettersTexts = (count: number, minLength: number, maxLength: number) =>
  fc.array(fc.string({ unit: fc.constantFrom(...'abcdefgh'), minLength, maxLength }), {
    minLength: count,
    maxLength: count,
  });

describe('the WebAssembly scan, as its memory grows', () => {
  it('resumes a short text where it paused when the new row grew the memory', () => {
    // Short texts (under LANES × DEPTH × 2 bytes) walk in one lane: a pause there resolves a cell
    // whose new row can grow the memory mid-scan, detaching the views read before.
    let grew = 0;
    fc.assert(
      fc.property(lettersTexts(40, 30, 79), (texts) => {
        const lists = manyStateLists();
        const wasm = new LiteralScanner(lists, { webAssemblyAfter: 0 });
        const js = new LiteralScanner(lists, { webAssemblyAfter: Number.POSITIVE_INFINITY });
        for (const text of texts) expectSameScan(wasm, js, text);
        if (wasm.memoryBytes > 65_536) grew += 1;
      }),
      { numRuns: 20 },
    );
    expect(grew).toBeGreaterThan(10);
  });
});

describe('where WebAssembly fails at run time', () => {
  const metadata = (message: string): ProviderErrorMetadata => ({
    provider: 'test',
    origin: 'http',
    statusCode: 429,
    message,
  });

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('where `WebAssembly` is not defined, scanners walk in JavaScript', async () => {
    vi.stubGlobal('WebAssembly', undefined);
    const fresh = await import('./index.ts');
    const freshFeatures = await import('./features.ts');
    vi.unstubAllGlobals();
    const messages = realTexts({ bodies: true }).filter((text) => text.length > 40 && text.length < 2000);
    const expected = messages.map((message) => explainClassification(metadata(message)));
    vi.stubGlobal('WebAssembly', undefined);
    messages.forEach((message, index) => {
      expect(fresh.explainClassification(metadata(message))).toEqual(expected[index]);
    });
    expect(freshFeatures.literalPrefilter().scanner.webAssembly).toBe(false);
  });

  it('where the instance is refused (out of memory), scanners walk in JavaScript', async () => {
    const refused = vi.spyOn(WebAssembly, 'Instance').mockImplementation(function refuse() {
      throw new RangeError(
        'WebAssembly.Instance(): Out of memory: Cannot allocate Wasm memory for new instance',
      );
    });
    const fresh = await import('./index.ts');
    const freshFeatures = await import('./features.ts');
    const messages = realTexts({ bodies: true }).filter((text) => text.length > 40 && text.length < 2000);
    messages.forEach((message) => {
      // The reference: this module's scanner (it moved to WebAssembly in the tests above).
      const reference = explainClassification(metadata(message));
      expect(fresh.explainClassification(metadata(message)), message.slice(0, 200)).toEqual(reference);
    });
    expect(refused).toHaveBeenCalled();
    expect(freshFeatures.literalPrefilter().scanner.webAssembly).toBe(false);
  });

  it('where the memory will not grow, a scanner goes on in JavaScript with the same answers', () => {
    const grow = vi.spyOn(WebAssembly.Memory.prototype, 'grow').mockImplementation(() => {
      throw new RangeError('WebAssembly.Memory.grow(): Maximum memory size exceeded');
    });
    fc.assert(
      fc.property(lettersTexts(40, 30, 79), fc.integer({ min: 0, max: 39 }), (texts, growAt) => {
        const lists = manyStateLists();
        // A new row (the table outgrows the first page) or a longer text (past the first 3072
        // bytes of room): the memory must grow, and will not.
        texts.splice(growAt, 0, texts.join('').repeat(2));
        const wasm = new LiteralScanner(lists, { webAssemblyAfter: 0 });
        const js = new LiteralScanner(lists, { webAssemblyAfter: Number.POSITIVE_INFINITY });
        for (const text of texts) expectSameScan(wasm, js, text);
        expect(wasm.webAssembly).toBe(false);
        expect(wasm.tableBytes).toBe(js.tableBytes);
      }),
      { numRuns: 20 },
    );
    // And a scanner that moves once its table outgrew the first page: it stays in JavaScript.
    fc.assert(
      fc.property(lettersTexts(60, 30, 79), (texts) => {
        const lists = manyStateLists();
        const moving = new LiteralScanner(lists, { webAssemblyAfter: 30 });
        const js = new LiteralScanner(lists, { webAssemblyAfter: Number.POSITIVE_INFINITY });
        for (const text of texts) expectSameScan(moving, js, text);
        expect(moving.webAssembly).toBe(false);
      }),
      { numRuns: 10 },
    );
    expect(grow).toHaveBeenCalled();
  });
});
