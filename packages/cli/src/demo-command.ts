import { expectedFor, type Scenario } from '@faultline/llm-mock';
import { type ErrorReport, FaultlineError, formatPanel, toErrorReport } from '@faultline/render';
import { createSpinner } from 'nanospinner';
import { withAiSdkRows } from './ai-sdk-rows.ts';
import {
  driveScenario,
  type LoadedProvider,
  loadProvider,
  PROVIDER_NAMES,
  ScenarioDidNotSettle,
  type ScenarioServers,
  SdkNotInstalled,
  startScenarioServers,
} from './driver/index.ts';
import { findScenariosDirectory, loadDemoScenarios } from './scenario-source.ts';
import {
  type Colors,
  CommandFailure,
  colorEnabled,
  colorsFor,
  type TerminalStreams,
  terminalWidth,
  wrapProse,
} from './terminal.ts';

/** The order of the demo table's rows within a provider. */
export const demoLabels = [
  'rate limit',
  'quota',
  'overload',
  'context overflow',
  'content block',
  'bad key',
  'unknown model',
  'DNS failure',
  'refused connection',
  'stream cut',
] as const;

export interface DemoOptions {
  json?: boolean;
  /** Only these providers (scenario folder names). */
  provider?: string[];
  /** The SDK client timeout per call, in milliseconds. */
  timeoutMs?: number;
}

/** One row of the demo: a scenario, what the SDK threw, and what faultline made of it. */
export interface DemoResult {
  provider: string;
  scenario: string;
  label: string;
  report: ErrorReport;
  /** How the scenario was driven when not through the provider's own SDK (`ai-sdk`: the Vercel AI SDK). */
  via?: string;
  /** Why this row breaks the demo (a classification that does not match the scenario), if it does. */
  problems: string[];
}

const clientTimeoutMs = 4_000;
const concurrency = 8;

function labelRank(label: string): number {
  const index = (demoLabels as readonly string[]).indexOf(label);
  return index === -1 ? demoLabels.length : index;
}

interface DemoTask {
  provider: LoadedProvider;
  scenario: Scenario;
}

/** Compares the report with the scenario's expectation for the driven SDK; returns what differs. */
export function mismatches(
  scenario: Scenario,
  sdkPackage: string | undefined,
  report: ErrorReport,
): string[] {
  const expected = expectedFor(scenario, sdkPackage);
  const problems: string[] = [];
  const compare = (name: string, wanted: unknown, actual: unknown) => {
    if (wanted !== undefined && wanted !== actual) {
      problems.push(`${name} expected ${JSON.stringify(wanted)}, got ${JSON.stringify(actual)}`);
    }
  };
  compare('category', expected.category, report.category);
  compare('reason', expected.reason, report.reason);
  compare('retryable', expected.retryable, report.retryable);
  compare('userAction', expected.userAction, report.userAction.kind);
  compare('httpStatus', expected.httpStatus, report.httpStatus);
  compare('retryAfterSeconds', expected.retryAfterSeconds, report.retryAfterSeconds);
  compare('statusCode', expected.statusCode, report.providerMetadata.statusCode);
  compare('providerCode', expected.providerCode, report.providerMetadata.providerCode);
  return problems;
}

async function runTask(task: DemoTask, servers: ScenarioServers, timeoutMs: number): Promise<DemoResult> {
  const { provider, scenario } = task;
  const label = scenario.demo ?? scenario.id;
  const base = { provider: provider.entry.name, scenario: scenario.id, label };
  let thrown: unknown;
  try {
    // The driver bounds the call: faultline's deadline, then a hard bound naming the scenario.
    const outcome = await driveScenario(scenario, servers, { timeoutMs });
    if (outcome.kind === 'success') {
      return {
        ...base,
        report: toErrorReport(undefined),
        problems: ['the call succeeded, but the scenario is a failure'],
      };
    }
    thrown = outcome.error;
  } catch (error) {
    thrown = error;
  }
  const report = toErrorReport(thrown);
  if (thrown instanceof ScenarioDidNotSettle) return { ...base, report, problems: [thrown.message] };
  const problems = FaultlineError.isInstance(thrown)
    ? mismatches(scenario, provider.entry.sdk ?? undefined, report)
    : [`withClassifiedErrors let a non-FaultlineError escape (${report.errorType})`];
  return { ...base, report, problems };
}

async function runPool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}

export interface DemoOutcome {
  results: DemoResult[];
  /** What broke the demo itself (missing adapters, mismatched classifications). */
  problems: string[];
}

/** Runs every provider's demo scenarios through its real SDK and bound `withClassifiedErrors`. */
export async function runDemo(
  options: DemoOptions,
  onProgress: (done: number, total: number, current: string) => void = () => {},
): Promise<DemoOutcome> {
  const directory = findScenariosDirectory();
  const scenariosByProvider = loadDemoScenarios(directory);
  const problems: string[] = [];
  const wanted = options.provider;
  if (wanted !== undefined) {
    for (const key of wanted) {
      if (!PROVIDER_NAMES.includes(key)) {
        throw new CommandFailure(`unknown provider "${key}"; expected one of: ${PROVIDER_NAMES.join(', ')}`);
      }
    }
  }
  const tasks: DemoTask[] = [];
  const missing: string[] = [];
  for (const name of PROVIDER_NAMES) {
    if (wanted !== undefined && !wanted.includes(name)) continue;
    let provider: LoadedProvider;
    try {
      // Loads the adapter and the SDK before any row's time limit starts.
      provider = await loadProvider(name);
    } catch (error) {
      if (error instanceof SdkNotInstalled) missing.push(error.sdk);
      else problems.push(`${name}: ${(error as Error).message}`);
      continue;
    }
    const scenarios = (scenariosByProvider.get(name) ?? []).filter(
      (scenario) => expectedFor(scenario, provider.entry.sdk ?? undefined).skip === undefined,
    );
    if (scenarios.length === 0) {
      problems.push(`${name}: no scenario with a "demo" label in ${directory}/${name}`);
      continue;
    }
    scenarios.sort((left, right) => labelRank(left.demo ?? '') - labelRank(right.demo ?? ''));
    for (const scenario of scenarios) tasks.push({ provider, scenario });
  }

  if (missing.length > 0) {
    throw new CommandFailure(
      `faultline demo drives the real provider SDKs, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not installed (@faultline/cli installs none: classify and mock need none). Run the demo with them: npx @faultline/demo`,
    );
  }
  const servers = await startScenarioServers();
  try {
    let done = 0;
    onProgress(done, tasks.length, '');
    const results = await runPool(tasks, concurrency, async (task) => {
      const result = await runTask(task, servers, options.timeoutMs ?? clientTimeoutMs);
      done += 1;
      onProgress(done, tasks.length, `${task.provider.entry.name} ${result.label}`);
      return result;
    });
    for (const result of results) {
      if (result.problems.length > 0) problems.push(`${result.scenario}: ${result.problems.join('; ')}`);
    }
    const scenarios = tasks.map((task) => task.scenario);
    const timeoutMs = options.timeoutMs ?? clientTimeoutMs;
    const withAiSdk = await withAiSdkRows(results, scenarios, timeoutMs);
    return { results: withAiSdk.results, problems: [...problems, ...withAiSdk.problems] };
  } finally {
    await servers.close();
  }
}

function formatWait(seconds: number): string {
  if (seconds >= 3600) return `${Math.round(seconds / 360) / 10} h`;
  if (seconds >= 120) return `${Math.round(seconds / 6) / 10} min`;
  return `${Math.round(seconds * 10) / 10} s`;
}

function categoryColor(colors: Colors, category: string): (text: string) => string {
  switch (category) {
    case 'transient':
      return colors.yellow;
    case 'ambiguous':
      return colors.magenta;
    case 'configuration':
      return colors.red;
    case 'capacity':
      return colors.cyan;
    case 'content':
      return colors.blue;
    default:
      return colors.gray;
  }
}

/**
 * The retry decision in the report's own terms: retried (after the provider's wait), retried only
 * for an idempotent call, or not (with the wait the provider gave, which then says when a spent
 * allowance resets, not when to retry).
 */
function retryCell(report: ErrorReport): string {
  const wait = report.retryAfterSeconds === undefined ? undefined : formatWait(report.retryAfterSeconds);
  if (report.retryable) return wait === undefined ? 'yes' : `yes, in ${wait}`;
  if (report.retryOnlyIfIdempotent) return 'if idempotent';
  return wait === undefined ? 'no' : `no (${wait})`;
}

const columns = [
  { title: 'scenario', width: 19 },
  { title: 'reason', width: 16 },
  { title: 'retry', width: 13 },
  { title: 'next step', width: 19 },
] as const;

/**
 * The provider × scenario table, one block per provider, 76 columns wide: the words are the
 * report's (reason, retry decision, next step), so a row never says one thing and the panel another.
 */
export function formatDemoTable(results: DemoResult[], colors: Colors): string {
  const cell = (text: string, index: number) => text.padEnd(columns[index]?.width ?? 0);
  const lines = [
    `  ${columns.map((column, index) => colors.bold(cell(column.title, index))).join('  ')}`.trimEnd(),
  ];
  let provider: string | undefined;
  for (const result of results) {
    if (result.provider !== provider) {
      provider = result.provider;
      lines.push(colors.bold(provider));
    }
    const { report } = result;
    const paint = categoryColor(colors, report.category);
    const broken = result.problems.length > 0;
    const label = broken ? `${result.label} (!)` : result.label;
    const cells = [
      broken ? colors.red(cell(label, 0)) : cell(label, 0),
      paint(cell(report.reason, 1)),
      report.retryable ? colors.green(cell(retryCell(report), 2)) : cell(retryCell(report), 2),
      report.nextStep,
    ];
    lines.push(`  ${cells.join('  ')}`);
  }
  return lines.join('\n');
}

/** How many failures a retry can fix, may fix, and cannot fix. */
export function summaryLine(results: DemoResult[]): string {
  const count = (category: string) => results.filter((result) => result.report.category === category).length;
  const transient = count('transient');
  const ambiguous = count('ambiguous');
  const rest = results.length - transient - ambiguous;
  return `${transient} transient (retry after the wait), ${ambiguous} ambiguous (retry only when the call is idempotent), ${rest} that no retry can fix (change the input, model, key or account).`;
}

/** The row whose panel the demo shows: a rate limit with a wait, else the first transient failure. */
export function pickShowcase(results: DemoResult[]): DemoResult | undefined {
  const healthy = results.filter((result) => result.problems.length === 0);
  return (
    healthy.find(
      (result) => result.report.reason === 'rate_limit' && result.report.retryAfterSeconds !== undefined,
    ) ??
    healthy.find((result) => result.report.category === 'transient') ??
    healthy[0] ??
    results[0]
  );
}

export async function demoCommand(options: DemoOptions, streams: TerminalStreams): Promise<number> {
  // A spinner only on a real terminal: nanospinner loops forever on a TTY that reports 0 columns.
  const stderrColumns = (streams.stderr as { columns?: number }).columns ?? 0;
  const interactive = streams.stderr.isTTY === true && stderrColumns > 0;
  const spinner = interactive
    ? createSpinner('Starting the loopback provider server', {
        stream: streams.stderr as NodeJS.WriteStream,
      }).start()
    : undefined;
  const startedAt = Date.now();
  let outcome: DemoOutcome;
  try {
    outcome = await runDemo(options, (done, total, current) => {
      spinner?.update({
        text: `Driving the real SDKs: ${done}/${total}${current === '' ? '' : ` (${current})`}`,
      });
    });
  } catch (error) {
    spinner?.error({ text: 'The demo could not run' });
    throw error;
  }
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  const { results, problems } = outcome;
  if (problems.length === 0) {
    spinner?.success({ text: `${results.length} failures classified in ${seconds} s` });
  } else {
    spinner?.error({ text: `${results.length} calls in ${seconds} s; the demo is broken` });
  }

  if (options.json === true) {
    const rows = results.map(({ provider, scenario, via, report }) =>
      via === undefined ? { provider, scenario, report } : { provider, scenario, via, report },
    );
    streams.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  } else {
    const colors = colorsFor(streams.stdout, streams.environment);
    const width = terminalWidth(streams.stdout, streams.environment);
    const say = (text: string) => streams.stdout.write(`${wrapProse(text, width)}\n`);
    // The AI SDK rows replay one failure per provider: the counts are of the provider-SDK rows.
    const sdkRows = results.filter((result) => result.via === undefined);
    const providers = new Set(sdkRows.map((result) => result.provider));
    const aiSdkRows = results.length - sdkRows.length;
    say(
      `${colors.bold('faultline demo')}: ${sdkRows.length} failures from ${providers.size} real SDKs against a loopback server, each classified once at the source${aiSdkRows > 0 ? `; ${aiSdkRows} of them again through the Vercel AI SDK (@faultline/ai-sdk), which must agree` : ''}.`,
    );
    streams.stdout.write(`\n${formatDemoTable(results, colors)}\n\n`);
    say(summaryLine(sdkRows));
    const showcase = pickShowcase(results);
    if (showcase !== undefined) {
      streams.stdout.write('\n');
      say(colors.bold(`One of them in full (${showcase.provider}, ${showcase.label}):`));
      streams.stdout.write(
        `\n${formatPanel(showcase.report, { color: colorEnabled(streams.stdout, streams.environment), width })}\n`,
      );
    }
    streams.stdout.write('\n');
    say(
      `Classify a failure you captured: ${colors.bold('faultline classify --status 429 --body-file body.json')}`,
    );
  }
  if (problems.length > 0) {
    const colors = colorsFor(streams.stderr, streams.environment);
    streams.stderr.write(`${colors.red('faultline demo is broken:')}\n`);
    for (const problem of problems) streams.stderr.write(`  - ${problem}\n`);
    return 1;
  }
  return 0;
}
