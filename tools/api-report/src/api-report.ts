/**
 * The API report of every publishable package: what a user can import, as API Extractor reads it
 * from the built declarations (`dist/*.d.ts`, what npm ships), one `api-report.md` per package.
 * CI runs the check after `pnpm build`: a public signature that changes without its report
 * changing in the same commit fails, so a change to what users compile against is deliberate and
 * shows up in review.
 *
 * Usage (after `pnpm build`): `pnpm api:check`, or `pnpm api:update` to rewrite the reports.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  type IConfigFile,
} from '@microsoft/api-extractor';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The file each package's report is kept in, beside its package.json (not in its `files`). */
export const REPORT_FILE = 'api-report.md';

interface EntryPoint {
  /** The specifier a user imports: `@faultline/render`, `@faultline/render/toolkit`. */
  readonly specifier: string;
  readonly declarations: string;
}

interface PublishedPackage {
  readonly dir: string;
  readonly name: string;
  readonly manifestPath: string;
  readonly entryPoints: readonly EntryPoint[];
}

type ExportTarget = string | { readonly types?: string; readonly [condition: string]: unknown };

/** Every package under `packages/` that is not private, with the declarations of each export. */
export function publishedPackages(root = repoRoot): PublishedPackage[] {
  return readdirSync(join(root, 'packages'))
    .sort()
    .map((name) => join(root, 'packages', name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .flatMap((dir) => {
      const manifestPath = join(dir, 'package.json');
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
        name: string;
        private?: boolean;
        exports?: Record<string, ExportTarget>;
      };
      if (manifest.private === true) return [];
      const entryPoints = Object.entries(manifest.exports ?? {}).flatMap(([subpath, target]) => {
        const types = typeof target === 'object' ? target.types : undefined;
        if (types === undefined) return [];
        return [{ specifier: join(manifest.name, subpath), declarations: join(dir, types) }];
      });
      return [{ dir, name: manifest.name, manifestPath, entryPoints }];
    });
}

const COMPILER_OPTIONS = {
  target: 'ES2022',
  lib: ['ES2023', 'DOM'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  strict: true,
  skipLibCheck: true,
  types: ['node'],
};

function configOf(pkg: PublishedPackage, entry: EntryPoint, reportFolder: string): ExtractorConfig {
  const configObject: IConfigFile = {
    projectFolder: pkg.dir,
    mainEntryPointFilePath: entry.declarations,
    compiler: { overrideTsconfig: { compilerOptions: COMPILER_OPTIONS, files: [entry.declarations] } },
    apiReport: {
      enabled: true,
      reportFileName: entry.specifier.replace(/^@faultline\//, '').replaceAll('/', '-'),
      reportFolder,
      reportTempFolder: reportFolder,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      // The packages mark no release stages (@public, @beta): every export is public.
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: true },
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
        // Each undocumented export is already marked `// (undocumented)` where it stands; the
        // message would repeat it at the end, located by a line of the built declarations.
        'ae-undocumented': { logLevel: ExtractorLogLevel.None, addToApiReportFile: false },
      },
      // TSDoc syntax is the API reference's concern (typedoc), not the signatures'.
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None, addToApiReportFile: false } },
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
    },
  };
  return ExtractorConfig.prepare({
    configObject,
    configObjectFullPath: join(pkg.dir, 'api-extractor.json'),
    packageJsonFullPath: pkg.manifestPath,
  });
}

/**
 * A report as it reads from the package's names alone: a message API Extractor cannot attach to an
 * export is located by a line of the built declarations (`// dist/index-BfncvH82.d.ts:528:5 - …`),
 * a file named by a hash of tsup's chunk and lines that move with any change to the declarations,
 * so every rebuild would change the report. The message says what it is about by name.
 */
export function stableText(report: string): string {
  return report.replace(/^\/\/ [^\s]+\.d\.[cm]?ts:\d+:\d+ - /gm, '// ');
}

/**
 * Every package's report text, from one TypeScript program over every entry point's declarations
 * (API Extractor's shared compiler state): the packages' declarations import one another and
 * @types/node, which one program reads once instead of once per entry point.
 */
export function generateReports(packages: readonly PublishedPackage[]): Map<PublishedPackage, string> {
  const scratch = mkdtempSync(join(tmpdir(), 'faultline-api-report-'));
  try {
    const jobs = packages.flatMap((pkg) =>
      pkg.entryPoints.map((entry) => {
        const missing = !existsSync(entry.declarations);
        if (missing)
          throw new Error(`${entry.specifier}: no ${entry.declarations}; run \`pnpm build\` first`);
        return { pkg, entry, config: configOf(pkg, entry, join(scratch, pkg.name)) };
      }),
    );
    const [first] = jobs;
    if (first === undefined) return new Map();
    const compilerState = CompilerState.create(first.config, {
      additionalEntryPoints: jobs.map((job) => job.entry.declarations),
    });
    const problems: string[] = [];
    const sections = new Map<PublishedPackage, string[]>();
    for (const { pkg, entry, config } of jobs) {
      mkdirSync(config.reportFolder, { recursive: true });
      const result = Extractor.invoke(config, {
        localBuild: true,
        compilerState,
        messageCallback(message: ExtractorMessage) {
          message.handled = true;
          if (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning)
            problems.push(`${entry.specifier}: ${message.formatMessageWithLocation(repoRoot)}`);
        },
      });
      if (!result.succeeded) problems.push(`${entry.specifier}: API Extractor failed`);
      const [report] = config.reportConfigs;
      if (report === undefined) throw new Error(`${entry.specifier}: no report configured`);
      const text = stableText(readFileSync(join(config.reportTempFolder, report.fileName), 'utf8'));
      const list = sections.get(pkg) ?? [];
      list.push(pkg.entryPoints.length === 1 ? text : `<!-- entry point: ${entry.specifier} -->\n\n${text}`);
      sections.set(pkg, list);
    }
    // A forgotten export (a type a signature names but no entry point exports) is written into the
    // report itself, where a reviewer sees it; an error is a declaration API Extractor cannot read.
    const errors = problems.filter((problem) => !problem.includes('(ae-forgotten-export)'));
    if (errors.length > 0) throw new Error(errors.join('\n'));
    return new Map([...sections].map(([pkg, texts]) => [pkg, texts.join('\n')]));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Report files left in packages that are no longer published, or that have no entry point. */
function strayReports(packages: readonly PublishedPackage[]): string[] {
  const kept = new Set(packages.filter((pkg) => pkg.entryPoints.length > 0).map((pkg) => pkg.dir));
  return readdirSync(join(repoRoot, 'packages'))
    .map((name) => join(repoRoot, 'packages', name))
    .filter((dir) => existsSync(join(dir, REPORT_FILE)) && !kept.has(dir))
    .map((dir) => join(dir, REPORT_FILE));
}

function main(): void {
  const update = process.argv.includes('--update');
  const started = performance.now();
  const packages = publishedPackages().filter((pkg) => pkg.entryPoints.length > 0);
  const reports = generateReports(packages);
  const stale: string[] = [];
  for (const [pkg, text] of reports) {
    const file = join(pkg.dir, REPORT_FILE);
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    if (committed === text) continue;
    if (update) writeFileSync(file, text);
    else {
      stale.push(pkg.name);
      // What changed, as a reviewer will see it once the report is updated.
      const scratch = mkdtempSync(join(tmpdir(), 'faultline-api-diff-'));
      writeFileSync(join(scratch, REPORT_FILE), text);
      const shown = spawnSync(
        'diff',
        ['-u', committed === undefined ? '/dev/null' : file, join(scratch, REPORT_FILE)],
        { encoding: 'utf8' },
      );
      console.log(shown.stdout);
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  for (const stray of strayReports(packages)) {
    if (update) rmSync(stray);
    else stale.push(`${stray} (no published entry point)`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const entries = packages.reduce((sum, pkg) => sum + pkg.entryPoints.length, 0);
  if (stale.length > 0) {
    console.error(
      `The public API differs from its report in: ${stale.join(', ')}.\nIf the change is meant, run \`pnpm api:update\` and commit the reports with it (docs/contributing/api-reports.md).`,
    );
    process.exitCode = 1;
  } else
    console.log(
      `${update ? 'wrote' : 'checked'} the API reports of ${packages.length} packages (${entries} entry points) in ${seconds} s`,
    );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
