import type { Options } from 'tsup';

// Build options for the packages an adapter loads at import (classify, render, stainless and every
// `extract-*`): issue 17's goal is an adapter's cold import at most 20 ms above a bare Node process.
// Once zod left that path, what remains is the ESM loader's fixed cost per file and V8 parsing each
// file's text: whitespace, comments and verbose syntax are about a quarter of the bytes, and
// removing them takes about 0.7 ms off an adapter's import (bench `import`). Identifiers are kept,
// so class and function names (`FaultlineError`, an error's `name`) and stack frames still read as
// written; the shipped source maps lead back to the source.
export const importPathOptions = {
  minifyWhitespace: true,
  minifySyntax: true,
} as const satisfies Options;
