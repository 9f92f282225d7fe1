import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// The names an entry point exports only as types (interfaces, type aliases), for the export-list
// test each package keeps in src/exports.test.ts: the runtime names are pinned by importing the
// entry, these by asking the TypeScript checker, the one reader that sees both kinds of export.
export function typeOnlyExports(entry: URL): string[] {
  const file = fileURLToPath(entry);
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['@faultline/source'],
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    // Whether a name is a type or a value is decided by its declaration, which the binder reads
    // without the standard library or any dependency's declarations: the program holds only the
    // workspace's own sources (relative imports and `@faultline/*`), a few files instead of the
    // SDKs' thousands.
    noLib: true,
  };
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = (literals, containingFile, redirectedReference, compilerOptions) =>
    literals.map((literal) =>
      literal.text.startsWith('.') || literal.text.startsWith('@faultline/')
        ? ts.resolveModuleName(
            literal.text,
            containingFile,
            compilerOptions,
            host,
            undefined,
            redirectedReference,
          )
        : { resolvedModule: undefined },
    );
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (module === undefined) throw new Error(`${file} is not a module`);
  return checker
    .getExportsOfModule(module)
    .filter((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return (target.flags & ts.SymbolFlags.Value) === 0;
    })
    .map((symbol) => symbol.name)
    .sort();
}

/**
 * An entry point's export list, sorted: `values` from the loaded module (what exists at run time),
 * `types` from the checker (what exists only for TypeScript).
 */
export function exportList(module: object, entry: URL): { values: string[]; types: string[] } {
  return { values: Object.keys(module).sort(), types: typeOnlyExports(entry) };
}
