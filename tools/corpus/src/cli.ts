import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { corpusDir, loadCorpus, loadFloor, loadKnownDisagreements } from './case.ts';
import { historyEntryOf, loadHistory, rulesCommit, withEntry, writeHistory } from './history.ts';
import { runCorpus, sdkVersions } from './run.ts';
import { checkFloor, markdown, missLines, rowsOf, textTable } from './summary.ts';

const README = join(corpusDir, '..', 'docs', 'benchmarks.md');
const START = '<!-- corpus:start -->';
const END = '<!-- corpus:end -->';

/** Replaces the text between docs/benchmarks.md's corpus markers (and nothing else). */
function writeReadme(section: string): void {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/benchmarks.md has no ${START} ... ${END} section`);
  writeFileSync(README, `${readme.slice(0, start + START.length)}\n${section}\n${readme.slice(end)}`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    // pnpm forwards a literal `--` when the root script passes flags through.
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: {
      write: { type: 'boolean', default: false },
      group: { type: 'string', multiple: true },
      quiet: { type: 'boolean', default: false },
      batch: { type: 'string' },
    },
  });
  if (values.batch !== undefined) return scoreBatch(values.batch, values.quiet);
  const cases = loadCorpus(undefined, values.group);
  const known = loadKnownDisagreements();
  const floor = loadFloor();
  const unknownIds = Object.keys(known).filter((id) => !cases.some((entry) => entry.id === id));
  if (values.group === undefined && unknownIds.length > 0) {
    console.error(`corpus/known-disagreements.json names cases that do not exist: ${unknownIds.join(', ')}`);
    return 1;
  }
  const results = await runCorpus(cases);
  const rows = rowsOf(results);
  console.log(textTable(rows));
  const misses = missLines(results, known);
  if (!values.quiet && misses.length > 0) {
    console.log(`\nmisses (${misses.length}):`);
    for (const line of misses) console.log(`  ${line}`);
  }
  const listedHits = Object.keys(known).filter((id) =>
    results.some((result) => result.case.id === id && Object.values(result.hits).every(Boolean)),
  );
  for (const id of listedHits)
    console.log(`\nnote: ${id} is listed as a known disagreement but now passes; remove it`);
  const check = checkFloor(results, known, floor);
  console.log(
    `\nover ${check.counted} cases not listed as known disagreements: ${Object.entries(check.percent)
      .map(([field, value]) => `${field} ${value.toFixed(1)} %`)
      .join(', ')}`,
  );
  if (values.write) {
    if (values.group !== undefined) throw new Error('--write needs the whole corpus (no --group)');
    const section = markdown(rows, results, known, floor, sdkVersions(), loadHistory().batches);
    writeFileSync(join(corpusDir, 'results', 'latest.md'), `${section}\n`);
    writeReadme(section);
    console.log('wrote corpus/results/latest.md and docs/benchmarks.md');
  }
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
