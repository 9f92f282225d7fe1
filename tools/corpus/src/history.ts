import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { corpusDir, type LoadedCase } from './case.ts';
import type { CaseResult, FIELDS } from './run.ts';

const Percent = z.number().min(0).max(100);

/**
 * One batch's score at first sight: the cases as they arrived, classified by the rules as they were
 * before anything was changed for them. Written once per batch; a later run never rewrites it.
 */
export const HistoryEntry = z
  .object({
    /** The day the batch was scored (UTC, YYYY-MM-DD). */
    date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    batch: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
    /** The commit whose rules scored it (HEAD then; the runner refuses to record over uncommitted rule changes). */
    commit: z.string().regex(/^[0-9a-f]{7,40}$/),
    /** The corpus groups (providers, gateways, servers) the batch's cases belong to. */
    groups: z.array(z.string()).min(1),
    /** Distinct `source` values (doc pages, issue threads) the batch's cases were read from. */
    sources: z.number().int().min(1),
    cases: z.number().int().min(1),
    decision: Percent,
    reason: Percent,
    userAction: Percent,
    nextStep: Percent,
  })
  .strict();
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const History = z
  .object({ $comment: z.string().optional(), batches: z.array(HistoryEntry) })
  .strict()
  .refine((value) => new Set(value.batches.map((entry) => entry.batch)).size === value.batches.length, {
    message: 'a batch is recorded once',
  });
export type History = z.infer<typeof History>;

const HISTORY_COMMENT =
  "First-sight accuracy: each batch of new cases scored by `pnpm corpus --batch <name>` before any rule was changed for it (the commit is the rules that scored it). It predicts what a user meets on failures nobody here tried; the whole corpus's score (README, floor.json) measures fit. Written by tools/corpus, one entry per batch, never rewritten.";

export const historyPath = (directory: string = corpusDir): string => join(directory, 'history.json');

export function loadHistory(directory: string = corpusDir): History {
  const path = historyPath(directory);
  if (!existsSync(path)) return { $comment: HISTORY_COMMENT, batches: [] };
  return History.parse(JSON.parse(readFileSync(path, 'utf8')));
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
  return `${JSON.stringify(History.parse(history), null, 2)}\n`.replace(
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
