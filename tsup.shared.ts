import type { Options } from 'tsup';

// Build options for the packages an adapter loads at import (classify, render, stainless and every
// `extract-*`): issue 17's goal is an adapter's cold import at most 20 ms above a bare Node process.
// Once zod left that path, what remains is the ESM loader's fixed cost per file and V8 parsing each
// file's text: whitespace, comments and verbose syntax are about a quarter of the bytes, and
// removing them takes about 0.7 ms off an adapter's import (bench `import`). Identifiers are kept,
// so class and function names (`FaultlineError`, an error's `name`) and stack frames still read as
// written; the shipped source maps lead back to the source.
//
// The maps carry no `sourcesContent` (the text of every source file, embedded): under
// `node --enable-source-maps`, which many TypeScript applications run with, Node reads and
// JSON-parses the map of every file it loads, and with the sources embedded that was about 10 ms
// of CPU on an adapter's import, 7 ms without (bench `import`, the `--enable-source-maps` rows).
// Those 7 ms do not depend on the maps (empty maps cost the same): Node 20 measures the length of
// every line of each loaded file that names a map, one character at a time (`lineLengths` in its
// source_map_cache, about 30–40 ns a character in a fresh process), so only fewer bytes cut them. The packages ship the `src/*.ts` the maps name instead (each package.json's
// `files`; about the bytes the embedded sources took), so a mapped frame names the source file
// and line, an uncaught error shows that line and a debugger opens the file: the packed-install
// step checks it.
export const importPathOptions = {
  minifyWhitespace: true,
  minifySyntax: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
    // Whitespace minification writes a chunk on one line, and Node prints the line of the throw
    // above an uncaught error's trace: tens of kilobytes of code in a terminal. Lines of at most
    // 160 characters keep that one readable line (and cost one byte in each 160).
    options.lineLimit = 160;
  },
} as const satisfies Options;

// The other packages (bridges, CLI, llm-mock, resilience…) are not minified, but their maps leave
// out `sourcesContent` too and the packages ship `src/*.ts` like the import path's: the text of
// every source embedded in its map made the maps 3–4 times the size of the code they map, JSON
// that Node reads and parses at import under `--enable-source-maps` and that every install carries.
export const shippedMapOptions = {
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
} as const satisfies Options;
