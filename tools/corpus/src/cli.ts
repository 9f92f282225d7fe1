import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { corpusDir, loadCorpus, loadFloor, loadKnownDisagreements } from './case.ts';
import { historyEntryOf, loadHistory, rulesCommit, withEntry, writeHistory } from './history.ts';
import { type CorpusPath, isGeminiResponseLeak, PATH_LABELS, PATHS } from './paths.ts';
import { pathVersions, runCorpus, sdkVersions } from './run.ts';
import {
  checkFloors,
  markdown,
  missLines,
  ofPath,
  pathClients,
  pathDifferences,
  pathsOf,
  readmeTable,
  rowsOf,
  textTable,
} from './summary.ts';

const BENCHMARKS = join(corpusDir, '..', 'docs', 'benchmarks.md');
const README = join(corpusDir, '..', 'README.md');

/** Replaces the text between a file's `<!-- <marker>:start -->` and `<!-- <marker>:end -->` (and nothing else). */
function writeSection(path: string, marker: string, section: string): void {
  const start = `<!-- ${marker}:start -->`;
  const end = `<!-- ${marker}:end -->`;
  const text = readFileSync(path, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${path} has no ${start} ... ${end} section`);
  writeFileSync(path, `${text.slice(0, from + start.length)}\n${section}\n${text.slice(to)}`);
}

// See isGeminiResponseLeak: one rejection the LangChain path's Gemini client leaves unhandled.
process.on('unhandledRejection', (reason) => {
  if (isGeminiResponseLeak(reason)) return;
  console.error(reason);
  process.exitCode = 1;
  throw reason;
});

async function main(): Promise<number> {
  const { values } = parseArgs({
    // pnpm forwards a literal `--` when the root script passes flags through.
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: {
      write: { type: 'boolean', default: false },
      group: { type: 'string', multiple: true },
      quiet: { type: 'boolean', default: false },
      batch: { type: 'string' },
      path: { type: 'string', multiple: true },
    },
  });
  const paths = (values.path ?? [...PATHS]) as CorpusPath[];
  const unknownPaths = paths.filter((path) => !PATHS.includes(path));
  if (unknownPaths.length > 0) {
    console.error(`unknown --path ${unknownPaths.join(', ')}; the paths are ${PATHS.join(', ')}`);
    return 1;
  }
  if (values.batch !== undefined) return scoreBatch(values.batch, values.quiet);
  const cases = loadCorpus(undefined, values.group);
  const known = loadKnownDisagreements();
  const floor = loadFloor();
  const unknownIds = Object.keys(known).filter((id) => !cases.some((entry) => entry.id === id));
  if (values.group === undefined && unknownIds.length > 0) {
    console.error(`corpus/known-disagreements.json names cases that do not exist: ${unknownIds.join(', ')}`);
    return 1;
  }
  const results = await runCorpus(cases, { paths });
  for (const path of pathsOf(results)) {
    console.log(`\n${PATH_LABELS[path]}:`);
    console.log(textTable(rowsOf(ofPath(results, path))));
  }
  const misses = missLines(results, known);
  if (!values.quiet && misses.length > 0) {
    console.log(`\nmisses (${misses.length}):`);
    for (const line of misses) console.log(`  ${line}`);
  }
  // Known disagreements are the vendor SDK path's: a case another path gets right stays listed.
  const listedHits = Object.keys(known).filter((id) =>
    ofPath(results).some((result) => result.case.id === id && Object.values(result.hits).every(Boolean)),
  );
  for (const id of listedHits)
    console.log(`\nnote: ${id} is listed as a known disagreement but now passes; remove it`);
  const differences = pathDifferences(results);
  if (!values.quiet && differences.length > 0) {
    console.log(`\nwhere a path scores differently from the vendor SDK (${differences.length}):`);
    for (const line of differences) console.log(`  ${line}`);
  }
  const checks = checkFloors(results, known, floor);
  for (const path of pathsOf(results)) {
    const check = checks[path];
    if (check === undefined) continue;
    console.log(
      `\n${PATH_LABELS[path]}, over ${check.counted} cases not listed as known disagreements: ${Object.entries(
        check.percent,
      )
        .map(([field, value]) => `${field} ${value.toFixed(1)} %`)
        .join(', ')}`,
    );
  }
  if (values.write) {
    if (values.group !== undefined || paths.length !== PATHS.length)
      throw new Error('--write needs the whole corpus through every path (no --group, no --path)');
    const clients = pathClients(sdkVersions(), pathVersions());
    const section = markdown(results, known, floor, clients, loadHistory().batches);
    writeFileSync(join(corpusDir, 'results', 'latest.md'), `${section}\n`);
    writeSection(BENCHMARKS, 'corpus', section);
    writeSection(README, 'corpus-paths', readmeTable(results));
    console.log('wrote corpus/results/latest.md, docs/benchmarks.md and README.md');
  }
  const check = { failures: checks.failures };
  if (check.failures.length > 0) {
    for (const failure of check.failures) console.error(`corpus: ${failure}`);
    return 1;
  }
  return 0;
}

/**
 * Scores the cases of one batch. The first run records the batch's first-sight score in
 * corpus/history.json; a batch already recorded is scored again and shown beside that score, which
 * stays as it was.
 */
async function scoreBatch(batch: string, quiet: boolean): Promise<number> {
  const cases = loadCorpus().filter((entry) => entry.batch === batch);
  if (cases.length === 0) {
    console.error(`no case carries "batch": "${batch}"`);
    return 1;
  }
  const history = loadHistory();
  const recorded = history.batches.find((entry) => entry.batch === batch);
  // Checked before the run: a score that could not be recorded is not a first sight.
  const commit = recorded === undefined ? rulesCommit() : undefined;
  const results = await runCorpus(cases);
  console.log(textTable(rowsOf(results)));
  const misses = missLines(results, loadKnownDisagreements());
  if (!quiet && misses.length > 0) {
    console.log(`\nmisses (${misses.length}):`);
    for (const line of misses) console.log(`  ${line}`);
  }
  const entry = historyEntryOf(batch, results, { date: new Date(), commit: commit ?? 'HEAD' });
  const line = (
    label: string,
    scored: { decision: number; reason: number; userAction: number; nextStep: number },
  ) =>
    `${label}: decision ${scored.decision} %, reason ${scored.reason} %, userAction ${scored.userAction} %, nextStep ${scored.nextStep} %`;
  if (recorded !== undefined) {
    console.log(`\n${line(`batch ${batch}, first sight (${recorded.date}, ${recorded.commit})`, recorded)}`);
    console.log(line(`batch ${batch}, now`, entry));
    return 0;
  }
  writeHistory(withEntry(history, entry));
  console.log(
    `\n${line(`batch ${batch}, first sight over ${entry.cases} cases from ${entry.sources} sources`, entry)}`,
  );
  console.log('recorded in corpus/history.json');
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
