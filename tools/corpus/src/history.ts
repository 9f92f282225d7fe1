import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { corpusDir, type LoadedCase, parseOrThrow } from './case.ts';
import type { CaseResult, FIELDS } from './run.ts';

const Percent = v.pipe(v.number(), v.minValue(0), v.maxValue(100));
const atLeastOne = v.pipe(v.number(), v.integer(), v.minValue(1));

/**
 * One batch's score at first sight: the cases as they arrived, classified by the rules as they were
 * before anything was changed for them. Written once per batch; a later run never rewrites it.
 */
export const HistoryEntry = v.strictObject({
  /** The day the batch was scored (UTC, YYYY-MM-DD). */
  date: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/)),
  batch: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9._-]*$/)),
  /** The commit whose rules scored it (HEAD then; the runner refuses to record over uncommitted rule changes). */
  commit: v.pipe(v.string(), v.regex(/^[0-9a-f]{7,40}$/)),
  /** The corpus groups (providers, gateways, servers) the batch's cases belong to. */
  groups: v.pipe(v.array(v.string()), v.minLength(1)),
  /** Distinct `source` values (doc pages, issue threads) the batch's cases were read from. */
  sources: atLeastOne,
  cases: atLeastOne,
  decision: Percent,
  reason: Percent,
  userAction: Percent,
  nextStep: Percent,
});
export type HistoryEntry = v.InferOutput<typeof HistoryEntry>;

export const History = v.pipe(
  v.strictObject({ $comment: v.optional(v.string()), batches: v.array(HistoryEntry) }),
  v.check(
    (value) => new Set(value.batches.map((entry) => entry.batch)).size === value.batches.length,
    'a batch is recorded once',
  ),
);
export type History = v.InferOutput<typeof History>;

const HISTORY_COMMENT =
  "First-sight accuracy: each batch of new cases scored by `pnpm corpus --batch <name>` before any rule was changed for it (the commit is the rules that scored it). It predicts what a user meets on failures nobody here tried; the whole corpus's score (README, floor.json) measures fit. Written by tools/corpus, one entry per batch, never rewritten.";

export const historyPath = (directory: string = corpusDir): string => join(directory, 'history.json');

export function loadHistory(directory: string = corpusDir): History {
  const path = historyPath(directory);
  if (!existsSync(path)) return { $comment: HISTORY_COMMENT, batches: [] };
  return parseOrThrow(History, JSON.parse(readFileSync(path, 'utf8')), 'corpus/history.json');
}

const oneDecimal = (value: number): number => Math.round(value * 10) / 10;

/** The entry for a batch's results (every case of the batch counts: none is listed at first sight). */
export function historyEntryOf(
  batch: string,
  results: readonly (Pick<CaseResult, 'hits'> & { readonly case: Pick<LoadedCase, 'group' | 'source'> })[],
  facts: { readonly date: Date; readonly commit: string },
): HistoryEntry {
  if (results.length === 0) throw new Error(`no case carries "batch": "${batch}"`);
  const percent = (field: (typeof FIELDS)[number]): number =>
    oneDecimal((100 * results.filter((result) => result.hits[field]).length) / results.length);
  return {
    date: facts.date.toISOString().slice(0, 10),
    batch,
    commit: facts.commit,
    groups: [...new Set(results.map((result) => result.case.group))].sort(),
    sources: new Set(results.map((result) => result.case.source)).size,
    cases: results.length,
    decision: percent('decision'),
    reason: percent('reason'),
    userAction: percent('userAction'),
    nextStep: percent('nextStep'),
  };
}

/** History with the entry appended; a batch already recorded keeps its first-sight entry. */
export function withEntry(history: History, entry: HistoryEntry): History {
  if (history.batches.some((recorded) => recorded.batch === entry.batch)) {
    throw new Error(`batch "${entry.batch}" already has its first-sight score in corpus/history.json`);
  }
  return { $comment: history.$comment ?? HISTORY_COMMENT, batches: [...history.batches, entry] };
}

/** biome.json's `lineWidth`: the file is checked by `biome check` like every JSON file of the repository. */
const LINE_WIDTH = 110;

/**
 * The file's text as biome formats it: two-space JSON, and a list of names on one line when that
 * line fits in LINE_WIDTH (one name per line otherwise), so that recording a batch leaves
 * `biome check` clean without a format pass.
 */
export function historyText(history: History): string {
  return `${JSON.stringify(parseOrThrow(History, history, 'the history to write'), null, 2)}\n`.replace(
    /^( *)("[^"\n]+": )\[\n((?: *"[^"\n]*",?\n)+) *\](,?)$/gm,
    (whole: string, indent: string, key: string, items: string, comma: string) => {
      const names = items
        .split('\n')
        .map((line) => line.trim().replace(/,$/, ''))
        .filter((line) => line !== '');
      const inline = `${indent}${key}[${names.join(', ')}]${comma}`;
      return inline.length <= LINE_WIDTH ? inline : whole;
    },
  );
}

export function writeHistory(history: History, directory: string = corpusDir): void {
  writeFileSync(historyPath(directory), historyText(history));
}

/**
 * HEAD, when the classifying code is committed. A first-sight score over uncommitted changes to
 * packages/ could not be traced to the rules that made it, so recording refuses it.
 */
export function rulesCommit(repository: string = join(corpusDir, '..')): string {
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', repository, ...args], { encoding: 'utf8' }).trim();
  const dirty = git('status', '--porcelain', '--', 'packages');
  if (dirty !== '') {
    throw new Error(
      `packages/ has uncommitted changes; commit them (or score before changing rules):\n${dirty}`,
    );
  }
  return git('rev-parse', '--short=12', 'HEAD');
}
