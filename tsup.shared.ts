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
// more CPU on an adapter's import (bench `import`, the `--enable-source-maps` rows). A mapped
// stack frame still names the source file and line (`.../@faultline/render/src/errors.ts:295:10`,
// what the packed-install step checks); only the source line Node prints above an uncaught
// error's trace, which it took from the embedded text, is gone.
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
