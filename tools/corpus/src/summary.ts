import { type FieldFloor, type Floor, floorOf } from './case.ts';
import type { HistoryEntry } from './history.ts';
import { type CorpusPath, PATH_LABELS, PATHS } from './paths.ts';
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

/** The results of one path (the vendor SDK's by default), in their order. */
export function ofPath(results: readonly CaseResult[], path: CorpusPath = 'vendor'): CaseResult[] {
  return results.filter((result) => result.path === path);
}

/** The paths the results hold, in PATHS' order. */
export function pathsOf(results: readonly CaseResult[]): CorpusPath[] {
  return PATHS.filter((path) => results.some((result) => result.path === path));
}

/** One row per group (provider or gateway), then one for the whole corpus (the results of one path). */
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
    const path = result.path === 'vendor' ? '' : ` (${PATH_LABELS[result.path]})`;
    return `${result.case.id}${path} [${wrong}]\n    expected ${expected}\n    got      ${show(result.got)}${why ? `\n    known: ${why}` : ''}`;
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

/** Accuracy of one path's results over the cases not listed as known disagreements, against its floor. */
export function checkFloor(
  results: readonly CaseResult[],
  known: Readonly<Record<string, string>>,
  floor: FieldFloor,
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

/** Every path's check against its floor in corpus/floor.json; failures name their path. */
export function checkFloors(
  results: readonly CaseResult[],
  known: Readonly<Record<string, string>>,
  floor: Floor,
): Record<CorpusPath, FloorCheck | undefined> & { readonly failures: string[] } {
  const checks = Object.fromEntries(
    PATHS.map((path) => {
      const own = ofPath(results, path);
      return [path, own.length === 0 ? undefined : checkFloor(own, known, floorOf(floor, path))];
    }),
  ) as Record<CorpusPath, FloorCheck | undefined>;
  const failures = PATHS.flatMap((path) =>
    (checks[path]?.failures ?? []).map((failure) => `${PATH_LABELS[path]}: ${failure}`),
  );
  return { ...checks, failures };
}

const showShort = (got: Got): string =>
  'succeeded' in got ? 'no error' : 'hung' in got ? 'hung' : `${got.category}/${got.reason}`;

/**
 * One line per case and path where the path's score differs from the vendor SDK's on any field:
 * what the two paths said, and the label.
 */
export function pathDifferences(results: readonly CaseResult[]): string[] {
  const vendor = new Map(ofPath(results).map((result) => [result.case.id, result]));
  return results
    .filter((result) => result.path !== 'vendor')
    .flatMap((result) => {
      const base = vendor.get(result.case.id);
      if (base === undefined) return [];
      const differ = FIELDS.filter((field) => base.hits[field] !== result.hits[field]);
      if (differ.length === 0) return [];
      return [
        `${result.case.id} ${PATH_LABELS[result.path]} [${differ.join(',')}]: ${showShort(result.got)}, vendor SDK ${showShort(base.got)}, label ${result.case.label.category}/${result.case.label.reason}`,
      ];
    });
}

/** The per-path table: each path's accuracy per field over the whole corpus, and its floor. */
export function pathTable(
  results: readonly CaseResult[],
  known: Readonly<Record<string, string>>,
  floor: Floor,
  clients: Readonly<Record<CorpusPath, string>>,
): string[] {
  return [
    '| path | clients | cases | decision | reason | userAction | nextStep | decision floor |',
    '|---|---|---|---|---|---|---|---|',
    ...pathsOf(results).map((path) => {
      const { overall } = rowsOf(ofPath(results, path));
      const check = checkFloor(ofPath(results, path), known, floorOf(floor, path));
      return `| ${PATH_LABELS[path]} | ${clients[path]} | ${overall.cases} | ${FIELDS.map((field) => pct(overall.percent[field])).join(' | ')} | ${pct(floorOf(floor, path).decision)} (${pct(check.percent.decision)} over ${check.counted}) |`;
    }),
  ];
}

/** The client packages of each path, as the tables name them. */
export function pathClients(
  sdks: Readonly<Record<string, string>>,
  paths: Readonly<Record<'ai-sdk' | 'langchain', Readonly<Record<string, string>>>>,
): Record<CorpusPath, string> {
  const list = (versions: Readonly<Record<string, string>>) =>
    Object.entries(versions)
      .map(([name, version]) => `\`${name}\` ${version}`)
      .join(', ');
  return { vendor: list(sdks), 'ai-sdk': list(paths['ai-sdk']), langchain: list(paths.langchain) };
}

/**
 * The markdown section docs/benchmarks.md shows (and corpus/results/latest.md holds): per group,
 * every field through the vendor SDK and the decision through each other path; then each path's
 * accuracy over the corpus and its floor.
 */
export function markdown(
  results: readonly CaseResult[],
  known: Readonly<Record<string, string>>,
  floor: Floor,
  clients: Readonly<Record<CorpusPath, string>>,
  history: readonly HistoryEntry[] = [],
): string {
  const vendor = ofPath(results);
  const rows = rowsOf(vendor);
  const others = pathsOf(results).filter((path): path is Exclude<CorpusPath, 'vendor'> => path !== 'vendor');
  const otherRows = new Map(others.map((path) => [path, rowsOf(ofPath(results, path))]));
  const otherDecision = (path: Exclude<CorpusPath, 'vendor'>, group: string): string => {
    const table = otherRows.get(path);
    const row = group === 'all' ? table?.overall : table?.groups.find((entry) => entry.group === group);
    return row === undefined ? '' : pct(row.percent.decision);
  };
  const check = checkFloor(vendor, known, floorOf(floor, 'vendor'));
  const misses = vendor.filter(isMiss).length;
  const listed = vendor.filter((result) => isMiss(result) && known[result.case.id] !== undefined).length;
  const table = [...rows.groups, rows.overall].map(
    (row) =>
      `| ${row.group === 'all' ? '**all**' : row.group} | ${
        row.sdk === ''
          ? ''
          : row.sdk
              .split(', ')
              .map((sdk) => `\`${sdk}\``)
              .join(', ')
      } | ${row.cases} | ${pct(row.percent.decision)} | ${others.map((path) => `${otherDecision(path, row.group)} | `).join('')}${FIELDS.filter(
        (field) => field !== 'decision',
      )
        .map((field) => pct(row.percent[field]))
        .join(' | ')} |`,
  );
  const header = [
    'provider or gateway',
    'SDK',
    'cases',
    'decision: vendor SDK',
    ...others.map((path) => `decision: ${PATH_LABELS[path]}`),
    'reason',
    'userAction',
    'nextStep',
  ];
  const differences = pathDifferences(results).length;
  return [
    '### Accuracy on the field corpus',
    '',
    "_Generated by `pnpm corpus --write` (tools/corpus) from the field corpus in corpus/cases: real error payloads taken from provider docs, SDK test suites and user reports, each replayed on the loopback server through the real vendor SDK (classified by the provider's `withClassifiedErrors`, streams read through its guard), through `ai` with the provider's `@ai-sdk/*` package (`classifyAiSdkError`, `guardAiSdkStream`) and through LangChain's chat model of the provider (`classifyLangChainError`, `guardLangChainStream`). MCP tool failures (group `mcp`) are played to `@modelcontextprotocol/sdk`'s Client over stdio or streamable HTTP and classified by `@faultline/mcp`'s `classifyMcpFailure`, their one path._",
    '',
    `\`decision\` is category and retryable (what a retry loop acts on); each field is the share of cases whose report has the labelled value. Gateways are played through the client their users call them with (an OpenAI-compatible server: the openai SDK with a base URL, \`@ai-sdk/openai-compatible\`, \`ChatOpenAI\`). reason, userAction and nextStep are the vendor SDK's; every path's four fields are in the table after this one. Clients: ${clients.vendor}.`,
    '',
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---|').join('')}`,
    ...table,
    '',
    `${misses} cases missed at least one field through the vendor SDK (${listed} of them listed, with the reason, in corpus/known-disagreements.json); \`pnpm corpus\` prints each miss. Floor (corpus/floor.json), over the ${check.counted} cases not listed: decision ${pct(floor.decision)}, reason ${pct(floor.reason)}, userAction ${pct(floor.userAction)}, nextStep ${pct(floor.nextStep)}.`,
    ...(others.length === 0
      ? []
      : [
          '',
          'Per path, over the whole corpus (the floor is checked over the cases not listed as known disagreements):',
          '',
          ...pathTable(results, known, floor, clients),
          '',
          `${differences} case-and-path pairs score differently from the vendor SDK on some field; \`pnpm corpus\` prints them, and corpus/README.md says why each differs.`,
        ]),
    ...historySection(history),
  ].join('\n');
}

/**
 * The README's accuracy table: each path's accuracy over the corpus, one short row each (generated
 * with docs/benchmarks.md, whose path table names every client package and version).
 */
export function readmeTable(results: readonly CaseResult[]): string {
  return [
    '| path | cases | decision | reason | next step |',
    '|---|---|---|---|---|',
    ...pathsOf(results).map((path) => {
      const { overall } = rowsOf(ofPath(results, path));
      return `| ${PATH_LABELS[path]} | ${overall.cases} | ${pct(overall.percent.decision)} | ${pct(overall.percent.reason)} | ${pct(overall.percent.nextStep)} |`;
    }),
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
