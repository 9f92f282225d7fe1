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
// Those 7 ms do not depend on the maps (empty maps cost the same) and hardly on their bytes: Node
// 20 measures the length of every line of each loaded file that names a map with a JavaScript loop
// (`lineLengths` in its source_map_cache), and once about 5,000 characters have gone through it V8
// compiles that loop with TurboFan, the process's first optimising compile: 2–5 ms of CPU on a
// compiler thread (`node --trace-opt`). Measured on openai's import path (6 files, 164 KB): only
// render's 63 KB chunk mapped costs 5.5 ms, only classify's 70 KB chunk 5.8 ms, every file 7–7.5
// ms, and taking classify's two files (48 % of the bytes) out of the mapped set saves 0.8 ms. A
// process that had already loaded 20 KB of mapped code of its own (an application run with the
// flag) pays 2.4–4.3 ms for an adapter's maps (bench `import`, the rows after the application).
// The packages ship the `src/*.ts` the maps name instead of embedding them (each package.json's
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
