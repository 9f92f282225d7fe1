import type { Options } from 'tsup';

// Build options for the packages an adapter loads at import (classify, render, stainless and every
// `extract-*`): what a user pays at import is the ESM loader's cost per file and V8 parsing each
// file's text, so whitespace and comments are minified away. Identifiers are kept, so class and
// function names (`FaultlineError`, an error's `name`) and stack frames still read as written.
//
// The maps carry no `sourcesContent`: under `node --enable-source-maps`, which many TypeScript
// applications run with, Node reads and parses the map of every file it loads, and embedded sources
// make that cost grow with them. The packages ship the `src/*.ts` the maps name instead (each
// package.json's `files`), so a mapped frame names the source file and line, an uncaught error shows
// that line and a debugger opens the file: the packed-install step checks it. The import cost is
// measured by `pnpm bench` (docs/benchmarks.md).
export const importPathOptions = {
  minifyWhitespace: true,
  minifySyntax: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
    // Whitespace minification writes a chunk on one line, and Node prints the line of the throw
    // above an uncaught error's trace: a whole chunk in a terminal. A line limit keeps that line
    // readable.
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
