import type { Floor } from './case.ts';
import type { HistoryEntry } from './history.ts';
import { type CaseResult, FIELDS, type Field, type Got } from './run.ts';

export interface Row {
  readonly group: string;
  readonly sdk: string;
  readonly cases: number;
  /** Percent right per field, over every case of the row. */
  readonly percent: Readonly<Record<Field, number>>;
}

const percentOf = (results: readonly CaseResult[], field: Field): number =>
  results.length === 0 ? 100 : (100 * results.filter((result) => result.hits[field]).length) / results.length;

function rowOf(group: string, sdk: string, results: readonly CaseResult[]): Row {
  const percent = Object.fromEntries(FIELDS.map((field) => [field, percentOf(results, field)])) as Record<
    Field,
    number
  >;
  return { group, sdk, cases: results.length, percent };
}

/** One row per group (provider or gateway), then one for the whole corpus. */
export function rowsOf(results: readonly CaseResult[]): { groups: Row[]; overall: Row } {
  const byGroup = new Map<string, CaseResult[]>();
  for (const result of results) {
    const list = byGroup.get(result.case.group) ?? [];
    list.push(result);
    byGroup.set(result.case.group, list);
  }
  const groups = [...byGroup.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([group, list]) =>
      rowOf(group, [...new Set(list.map((result) => result.case.sdk))].sort().join(', '), list),
    );
  return { groups, overall: rowOf('all', '', results) };
}

export const isMiss = (result: CaseResult): boolean => FIELDS.some((field) => !result.hits[field]);

const show = (got: Got): string =>
  'succeeded' in got
    ? 'no error (the SDK call succeeded)'
    : 'hung' in got
      ? 'hung (the call did not settle after its time limit)'
      : `${got.category}/${got.reason} retryable=${got.retryable} ${got.userAction} next=${got.nextStep}`;

/** One line per miss: the case, the fields it got wrong, expected against got. */
export function missLines(results: readonly CaseResult[], known: Readonly<Record<string, string>>): string[] {
  return results.filter(isMiss).map((result) => {
    const wrong = FIELDS.filter((field) => !result.hits[field]).join(',');
    const { label } = result.case;
    const expected = `${label.category}/${label.reason} retryable=${label.retryable} ${label.userAction} next=${label.nextStep}`;
    const why = known[result.case.id];
    return `${result.case.id} [${wrong}]\n    expected ${expected}\n    got      ${show(result.got)}${why ? `\n    known: ${why}` : ''}`;
  });
}

const pct = (value: number): string => `${value.toFixed(1)} %`;

/** The plain-text table the command prints. */
export function textTable(rows: { groups: Row[]; overall: Row }): string {
  const header = ['group', 'sdk', 'cases', ...FIELDS];
  const lines = [...rows.groups, rows.overall].map((row) => [
    row.group,
    row.sdk,
    String(row.cases),
    ...FIELDS.map((field) => pct(row.percent[field])),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => line[column]!.length)),
  );
  const format = (cells: string[]): string =>
    cells
      .map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [format(header), ...lines.map(format)].join('\n');
}

export interface FloorCheck {
  readonly counted: number;
  readonly percent: Readonly<Record<Field, number>>;
  readonly failures: string[];
}

/** Accuracy over the cases not listed as known disagreements, against the floor. */
export function checkFloor(
  results: readonly CaseResult[],
  known: Readonly<Record<string, string>>,
  floor: Floor,
): FloorCheck {
  const counted = results.filter((result) => known[result.case.id] === undefined);
  const percent = Object.fromEntries(FIELDS.map((field) => [field, percentOf(counted, field)])) as Record<
    Field,
    number
  >;
  const failures = FIELDS.filter((field) => percent[field] < floor[field]).map(
    (field) => `${field} ${pct(percent[field])} is below the floor ${pct(floor[field])}`,
  );
  return { counted: counted.length, percent, failures };
}

/** The markdown section docs/benchmarks.md shows (and corpus/results/latest.md holds). */
export function markdown(
  rows: { groups: Row[]; overall: Row },
  results: readonly CaseResult[],
  known: Readonly<Record<string, string>>,
  floor: Floor,
  sdks: Readonly<Record<string, string>>,
  history: readonly HistoryEntry[] = [],
): string {
  const check = checkFloor(results, known, floor);
  const misses = results.filter(isMiss).length;
  const listed = results.filter((result) => isMiss(result) && known[result.case.id] !== undefined).length;
  const table = [...rows.groups, rows.overall].map(
    (row) =>
      `| ${row.group === 'all' ? '**all**' : row.group} | ${
        row.sdk === ''
          ? ''
          : row.sdk
              .split(', ')
              .map((sdk) => `\`${sdk}\``)
              .join(', ')
      } | ${row.cases} | ${FIELDS.map((field) => pct(row.percent[field])).join(' | ')} |`,
  );
  const versions = Object.entries(sdks)
    .map(([name, version]) => `\`${name}\` ${version}`)
    .join(', ');
  return [
    '### Accuracy on the field corpus',
    '',
    "_Generated by `pnpm corpus --write` (tools/corpus) from the field corpus in corpus/cases: real error payloads taken from provider docs, SDK test suites and user reports, each replayed through the real SDK on the loopback server and classified by the provider's `withClassifiedErrors` (streams read through its guard)._",
    '',
    `\`decision\` is category and retryable (what a retry loop acts on); each field is the share of cases whose report has the labelled value. Gateways are played through the SDK users call them with; one SDK major per provider: ${versions}.`,
    '',
    '| provider or gateway | SDK | cases | decision | reason | userAction | nextStep |',
    '|---|---|---|---|---|---|---|',
    ...table,
    '',
    `${misses} cases missed at least one field (${listed} of them listed, with the reason, in corpus/known-disagreements.json); \`pnpm corpus\` prints each miss. Floor (corpus/floor.json), over the ${check.counted} cases not listed: decision ${pct(floor.decision)}, reason ${pct(floor.reason)}, userAction ${pct(floor.userAction)}, nextStep ${pct(floor.nextStep)}.`,
    ...historySection(history),
  ].join('\n');
}

/** The first-sight table: each batch as it scored before any rule was changed for it. */
function historySection(history: readonly HistoryEntry[]): string[] {
  if (history.length === 0) return [];
  return [
    '',
    'First-sight accuracy (corpus/history.json): each batch of new cases as it scored when it arrived, before any rule was changed for it (`pnpm corpus --batch <name>`). This is the number that predicts a provider nobody here tried; the table above measures fit.',
    '',
    '| batch | date | rules at | groups | sources | cases | decision | reason |',
    '|---|---|---|---|---|---|---|---|',
    ...history.map(
      (entry) =>
        `| ${entry.batch} | ${entry.date} | \`${entry.commit}\` | ${entry.groups.length} | ${entry.sources} | ${entry.cases} | ${pct(entry.decision)} | ${pct(entry.reason)} |`,
    ),
  ];
}
