// `pnpm build`'s second half: the `.d.ts` of every package (or of the package folders named on the
// command line), from ONE TypeScript program over every package's entry points. Each package's
// tsup build writes only JavaScript: a declaration build per package (what tsup's `dts` does) is a
// program of its own that reads @types/node, classify, render and the SDKs' declarations again,
// package after package. One program reads them once and writes every package's declarations,
// `packages/<name>/src/<file>.ts` → `packages/<name>/dist/<file>.d.ts`, beside the JavaScript.
//
// Workspace imports resolve to their sources (the `@faultline/source` condition) and stay bare
// specifiers in the output; relative imports keep their `.ts` extension, which declaration files
// may use and which resolves to the `.d.ts` beside them. Only declaration-emit diagnostics are
// reported here; type errors are `pnpm typecheck`'s.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const packagesDir = join(root, 'packages');

interface Manifest {
  readonly exports?: Record<string, string | Record<string, string>>;
}

/** The package folders to write: those named (`packages/render`), or every package. */
const selected = (
  process.argv.length > 2
    ? process.argv.slice(2).map((folder) => resolve(folder))
    : readdirSync(packagesDir).map((name) => join(packagesDir, name))
).filter((folder) => existsSync(join(folder, 'package.json')));

/** Every entry point a package's exports map names as its source. */
const entries = selected.flatMap((folder) => {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
  return Object.values(manifest.exports ?? {}).flatMap((target) =>
    typeof target === 'object' && typeof target['@faultline/source'] === 'string'
      ? [join(folder, target['@faultline/source'])]
      : [],
  );
});

const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.base.json'), undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  },
});
if (config === undefined) throw new Error('tsconfig.base.json could not be read');

const program = ts.createProgram(entries, {
  ...config.options,
  noEmit: false,
  declaration: true,
  emitDeclarationOnly: true,
  rootDir: root,
  outDir: root,
});

/** `packages/<name>/src/<file>.d.ts` (outDir = rootDir) → `packages/<name>/dist/<file>.d.ts`. */
const targets = new Set(selected.map((folder) => relative(root, folder)));
let written = 0;
const { diagnostics } = program.emit(
  undefined,
  (fileName, text) => {
    const parts = relative(root, fileName).split(sep);
    const [top, name, src, ...rest] = parts;
    if (top !== 'packages' || src !== 'src' || name === undefined || !targets.has(join(top, name))) return;
    const output = join(packagesDir, name, 'dist', ...rest);
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, text);
    written += 1;
  },
  undefined,
  true,
);

if (diagnostics.length > 0) {
  console.error(
    ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (fileName) => fileName,
      getCurrentDirectory: () => root,
      getNewLine: () => '\n',
    }),
  );
  process.exit(1);
}
console.log(`declarations: ${written} files for ${selected.length} packages`);
