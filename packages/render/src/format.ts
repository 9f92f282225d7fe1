import { createColors } from 'picocolors';
import { asReport, type ReportSource } from './classify-error.ts';
import { type Disclosure, disclosedMessage, disclosureOption } from './disclosure.ts';
import { checkOptionKeys } from './invalid-option.ts';
import { DISCLOSURE_OPTION_KEYS, PANEL_OPTION_KEYS, TOOL_RESULT_OPTION_KEYS } from './option-keys.ts';
import type { ErrorReport } from './report.ts';
import { plainReport } from './report.ts';
import { scrubAndCut } from './secrets.ts';

/** Per-call choice of how much provider text an output carries (see `Disclosure`). */
export interface DisclosureOptions {
  readonly disclosure?: Disclosure | undefined;
}

export interface PanelOptions extends DisclosureOptions {
  /** Force colour on or off; by default colour is used on a TTY. `NO_COLOR` always wins. */
  readonly color?: boolean | undefined;
  /**
   * The columns the panel fits in (default 80): long values wrap at spaces, under their label.
   * A terminal's own width is `process.stdout.columns`.
   */
  readonly width?: number | undefined;
  /** Add the rule that decided and the words it matched (`decidedBy`), for whoever tunes rules. */
  readonly explain?: boolean | undefined;
}

/** The narrowest panel: the longest error class and reason on the first line. */
const MIN_PANEL_WIDTH = 60;

/**
 * `text` broken at spaces into lines of at most `width` characters; a word longer than a line
 * (a URL, an id) is cut, so that no line is wider than asked. Written here rather than taken from
 * a wrapping library: render runs in browsers and workers with valibot as its only dependency, and the
 * text it wraps is plain (colour is applied to whole lines after wrapping).
 */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((part) => part !== '')) {
    let rest = word;
    while (rest.length > width) {
      if (line !== '') lines.push(line);
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
      line = '';
    }
    if (line === '') line = rest;
    else if (line.length + 1 + rest.length <= width) line = `${line} ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/** The report with its message at the chosen disclosure level. */
function disclosed(report: ErrorReport, level: Disclosure): ErrorReport {
  return level === 'full' ? report : { ...report, message: disclosedMessage(report, level) };
}

/** How a report words its retry decision, the same in every formatter. */
function retryWords(report: ErrorReport): string {
  if (report.retriesExhausted === true) return 'retryable, retries exhausted';
  if (report.retryable) return 'retryable';
  if (report.retryOnlyIfIdempotent) return 'retry only if idempotent';
  return 'not retryable';
}

/** How a report words its wait: what the wait is for, never a bare number. */
function waitWords(report: ErrorReport): string | undefined {
  const wait = describeWait(report.retryAfterSeconds);
  if (wait === undefined) return undefined;
  if (report.waitKind === 'quota_reset') return `the quota resets in ${wait}`;
  if (report.waitKind === 'provider_wait')
    return `the provider asked to wait ${wait} (a retry will not fix this failure)`;
  return `retry after ${wait}`;
}

/** "3 attempts (waited 500 ms, 1 s)". */
function attemptWords(report: ErrorReport): string | undefined {
  const attempts = report.attempts;
  if (attempts === undefined) return undefined;
  const count = `${attempts.made} ${attempts.made === 1 ? 'attempt' : 'attempts'}`;
  if (attempts.waitsMs.length === 0) return count;
  const waits = attempts.waitsMs.map((ms) => describeWait(ms / 1000)).join(', ');
  return `${count} (waited ${waits})`;
}

// C0/C1 control characters (ANSI escapes included) other than tab and newline.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text safe to print on a terminal or in markdown: provider words may carry escape sequences. */
function printable(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '');
}

/** A copy of the report whose free-text fields are printable. */
function printableReport(report: ErrorReport): ErrorReport {
  const copy: ErrorReport = {
    ...report,
    errorType: printable(report.errorType),
    message: printable(report.message),
    provider: printable(report.provider),
    model: report.model === null ? null : printable(report.model),
    userAction:
      report.userAction.detail === undefined
        ? report.userAction
        : { ...report.userAction, detail: printable(report.userAction.detail) },
    providerMetadata: {
      ...report.providerMetadata,
      ...(report.providerMetadata.requestId === undefined
        ? {}
        : { requestId: printable(report.providerMetadata.requestId) }),
    },
  };
  if (report.operation !== undefined) copy.operation = printable(report.operation);
  if (report.decidedBy?.evidence !== undefined)
    copy.decidedBy = { ...report.decidedBy, evidence: printable(report.decidedBy.evidence) };
  return copy;
}

function colorEnabled(requested: boolean | undefined): boolean {
  try {
    const environment = typeof process === 'undefined' ? undefined : process.env;
    const noColor = environment?.NO_COLOR;
    if (noColor !== undefined && noColor !== '') return false;
    if (requested !== undefined) return requested === true;
    return typeof process !== 'undefined' && process.stdout?.isTTY === true;
  } catch {
    return false;
  }
}

function describeWait(seconds: number | undefined): string | undefined {
  if (seconds === undefined) return undefined;
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 120) return `${Math.round(seconds * 10) / 10} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}

/** One-line summary of where the failure happened. */
function whereLine(report: ErrorReport): string {
  const parts = [`provider ${report.provider}`];
  if (report.model !== null) parts.push(`model ${report.model}`);
  if (report.operation !== undefined) parts.push(`operation ${report.operation}`);
  if (report.providerMetadata.statusCode !== undefined)
    parts.push(`status ${report.providerMetadata.statusCode}`);
  if (report.providerMetadata.networkCode !== undefined)
    parts.push(`network ${report.providerMetadata.networkCode}`);
  return parts.join(' · ');
}

/** A terminal panel: what failed, why, whether a retry helps, what to do, and the request id. */
export function formatPanel(source: ReportSource, options: PanelOptions = {}): string {
  checkOptionKeys('formatPanel', options, PANEL_OPTION_KEYS);
  const report = printableReport(disclosed(asReport(source), disclosureOption(options, 'full')));
  const colors = createColors(colorEnabled(options?.color));
  const accent = report.retryable ? colors.yellow : colors.red;
  const border = colors.dim('│');
  const requested = options.width;
  const width =
    typeof requested === 'number' && Number.isFinite(requested)
      ? Math.max(MIN_PANEL_WIDTH, Math.floor(requested))
      : 80;
  // "│ " and one column wider than the longest label, so a value never touches its label.
  const labelWidth = 10;
  const decision = `(${report.category}, ${retryWords(report)})`;
  const headline = `${accent('✖')} ${colors.bold(report.errorType)} ${accent(report.reason)}`;
  const fits = 2 + report.errorType.length + 1 + report.reason.length + 1 + decision.length <= width;
  const lines = fits
    ? [`${headline} ${colors.dim(decision)}`]
    : [headline, `${border} ${colors.dim(decision)}`];
  for (const line of wrapWords(report.message, width - 2)) lines.push(`${border} ${line}`);
  const row = (name: string, value: string, paint: (text: string) => string = (text) => text) => {
    const [first = '', ...rest] = wrapWords(value, width - 2 - labelWidth);
    lines.push(`${border} ${colors.dim(name.padEnd(labelWidth))}${paint(first)}`);
    for (const line of rest) lines.push(`${border} ${' '.repeat(labelWidth)}${paint(line)}`);
  };
  row('where', whereLine(report));
  const attempts = attemptWords(report);
  if (attempts !== undefined) row('attempts', attempts);
  const wait = waitWords(report);
  if (wait !== undefined) row('wait', wait);
  row('next', report.nextStep, colors.cyan);
  if (report.userAction.detail !== undefined) row('advice', report.userAction.detail);
  if (report.providerMetadata.requestId !== undefined) row('request', report.providerMetadata.requestId);
  if (report.delivered !== undefined) {
    row('delivered', `${report.delivered.chunks} chunks, ${report.delivered.characters} characters`);
  }
  if (options.explain === true && report.decidedBy !== undefined) {
    const { rule, evidence } = report.decidedBy;
    row('rule', evidence === undefined ? rule : `${rule}: ${evidence}`);
  }
  return lines.join('\n');
}

/**
 * The one serialised form of a report: a plain JSON object (no prototypes, no undefined members)
 * that `fromDict` reads back. Any thrown value is reported first. `full` by default (secrets are
 * always scrubbed); pass `{ disclosure }` for less. For a log line: `JSON.stringify(toDict(error))`.
 */
export function toDict(source: ReportSource, options: DisclosureOptions = {}): Record<string, unknown> {
  checkOptionKeys('toDict', options, DISCLOSURE_OPTION_KEYS);
  return plainReport(disclosed(asReport(source), disclosureOption(options, 'full')));
}

function markdownCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The report as a markdown section (for issues, PR comments, chat). */
export function formatMarkdown(source: ReportSource, options: DisclosureOptions = {}): string {
  checkOptionKeys('formatMarkdown', options, DISCLOSURE_OPTION_KEYS);
  const report = printableReport(disclosed(asReport(source), disclosureOption(options, 'full')));
  const rows: Array<[string, string]> = [
    ['reason', `\`${report.reason}\``],
    ['category', `\`${report.category}\``],
    ['retry', retryWords(report)],
    ['next step', `\`${report.nextStep}\``],
    ['provider', report.provider],
    ['model', report.model ?? '—'],
  ];
  if (report.operation !== undefined) rows.push(['operation', report.operation]);
  if (report.providerMetadata.statusCode !== undefined)
    rows.push(['status', String(report.providerMetadata.statusCode)]);
  const attempts = attemptWords(report);
  if (attempts !== undefined) rows.push(['attempts', attempts]);
  const wait = waitWords(report);
  if (wait !== undefined) rows.push(['wait', wait]);
  if (report.delivered !== undefined)
    rows.push(['delivered', `${report.delivered.chunks} chunks, ${report.delivered.characters} characters`]);
  if (report.providerMetadata.requestId !== undefined)
    rows.push(['request id', `\`${report.providerMetadata.requestId}\``]);
  const lines = [
    `### ${markdownCell(report.errorType)}: ${markdownCell(report.message)}`,
    '',
    '| | |',
    '|---|---|',
    ...rows.map(([name, value]) => `| ${name} | ${markdownCell(value)} |`),
  ];
  if (report.userAction.detail !== undefined)
    lines.push('', `**What to do:** ${markdownCell(report.userAction.detail)}`);
  return lines.join('\n');
}

/** What an agent needs to decide its next step: the step, why, and what any wait is for. */
export function formatForLlm(source: ReportSource, options: DisclosureOptions = {}): string {
  checkOptionKeys('formatForLlm', options, DISCLOSURE_OPTION_KEYS);
  const report = printableReport(disclosed(asReport(source), disclosureOption(options, 'scrubbed')));
  const why = report.userAction.detail ?? report.message;
  const lines = [
    `The call failed: ${report.reason} (${report.category}).`,
    `nextStep: ${report.nextStep}`,
    `why: ${why}`,
    `retryable: ${report.retryable ? 'yes' : 'no'}${
      report.retriesExhausted === true
        ? ' (its retries are exhausted)'
        : !report.retryable && report.retryOnlyIfIdempotent
          ? ' (only if the call is idempotent)'
          : ''
    }`,
  ];
  const attempts = attemptWords(report);
  if (attempts !== undefined) lines.push(`attempts: ${attempts}`);
  if (report.nextStep === 'retry') {
    lines.push(
      report.retryAfterSeconds !== undefined
        ? `wait: ${Math.ceil(report.retryAfterSeconds)} seconds before retrying`
        : 'wait: a few seconds (no wait was given)',
    );
  } else if (report.nextStep === 'retry_if_idempotent') {
    lines.push(
      'idempotent: the provider may have processed the request; repeat it only if doing it twice is safe',
    );
  }
  if (report.nextStep !== 'retry' && report.retryAfterSeconds !== undefined) {
    const wait = Math.ceil(report.retryAfterSeconds);
    lines.push(
      report.waitKind === 'quota_reset'
        ? `wait: the quota resets in ${wait} seconds`
        : report.waitKind === 'retry_after'
          ? `wait: ${wait} seconds before any retry`
          : `wait: the provider stated ${wait} seconds; a retry will not fix this failure`,
    );
  }
  if (report.delivered !== undefined)
    lines.push(
      `delivered before the failure: ${report.delivered.chunks} chunks, ${report.delivered.characters} characters`,
    );
  lines.push(`error: ${report.message}`);
  return lines.join('\n');
}

/** The compact wire form. `error`, `category` and `detail` are reserved: extras never overwrite them. */
export interface WireError {
  error: ErrorReport['reason'];
  category: ErrorReport['category'];
  detail: string;
  [extra: string]: unknown;
}

/** The value as plain JSON (strings scrubbed), or undefined when it has no JSON form. */
/**
 * JSON.stringify replacer for extras: bytes are dropped (a 50 MB typed array would be written as
 * ~500 MB of JSON) and long strings are cut before they are copied, wherever they are nested.
 */
function boundedJsonValue(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.length > 16 * 1024 ? value.slice(0, 16 * 1024) : value;
  if (typeof value !== 'object' || value === null) return value;
  if (isBytes(value)) return undefined;
  // Drop bytes one level down too, before JSON.stringify calls their toJSON (Buffer's builds an
  // array of every byte before any replacer sees it).
  let copy: Record<string, unknown> | unknown[] | undefined;
  for (const name of Object.keys(value)) {
    if (!isBytes((value as Record<string, unknown>)[name])) continue;
    copy ??= Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
    if (Array.isArray(copy)) copy[Number(name)] = null;
    else delete copy[name];
  }
  return copy ?? value;
}

function isBytes(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && (ArrayBuffer.isView(value) || value instanceof ArrayBuffer)
  );
}

function jsonSafe(value: unknown): unknown {
  if (typeof value === 'string') return scrubAndCut(value);
  if (typeof value === 'boolean' || value === null) return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'object' || isBytes(value)) return undefined;
  try {
    const text = JSON.stringify(value, boundedJsonValue);
    return text === undefined ? undefined : (JSON.parse(scrubAndCut(text, 16 * 1024)) as unknown);
  } catch {
    return undefined;
  }
}

const RESERVED_WIRE_KEYS = new Set(['error', 'category', 'detail']);

/**
 * `{ error, category, detail, ...extras }`: the compact form for the app's clients, tool results and
 * queues. `detail` is `safe` by default (no provider text); pass `{ disclosure }` for more.
 */
export function toWireError(
  source: ReportSource,
  extras?: Record<string, unknown>,
  options: DisclosureOptions = {},
): WireError {
  checkOptionKeys('toWireError', options, DISCLOSURE_OPTION_KEYS);
  const report = asReport(source);
  const detail = disclosedMessage(report, disclosureOption(options, 'safe'));
  const wire: WireError = { error: report.reason, category: report.category, detail };
  if (extras === null || typeof extras !== 'object') return wire;
  // Object.keys of a 50 MB typed array builds 50 million keys before any slice.
  if (ArrayBuffer.isView(extras)) return wire;
  let keys: string[] = [];
  try {
    keys = Object.keys(extras).slice(0, 100);
  } catch {
    return wire;
  }
  const result: Record<string, unknown> = {};
  for (const key of keys) {
    if (RESERVED_WIRE_KEYS.has(key) || key === '__proto__') continue;
    try {
      const value = jsonSafe((extras as Record<string, unknown>)[key]);
      if (value !== undefined) result[key] = value;
    } catch {
      // A getter that throws: leave the extra out.
    }
  }
  return Object.assign(result, wire) as WireError;
}

export interface ToolResultOptions extends DisclosureOptions {
  readonly toolUseId?: string | undefined;
}

/** The tool-result envelope an agent protocol expects for a failed tool call. */
export interface ToolResult {
  type: 'tool_result';
  tool_use_id?: string;
  is_error: true;
  content: string;
}

/**
 * `{ type: 'tool_result', tool_use_id?, is_error: true, content }` where content is the wire form as
 * JSON (`scrubbed` by default: the model reads the provider's words, not the account behind them),
 * with `nextStep`, `retryable`, `retryOnlyIfIdempotent`, the wait and its kind, and the attempts made,
 * so the agent can act.
 */
export function toolResultFor(source: ReportSource, options: ToolResultOptions = {}): ToolResult {
  checkOptionKeys('toolResultFor', options, TOOL_RESULT_OPTION_KEYS);
  const report = asReport(source);
  const extras: Record<string, unknown> = {
    nextStep: report.nextStep,
    retryable: report.retryable,
    retryOnlyIfIdempotent: report.retryOnlyIfIdempotent,
  };
  if (report.retryAfterSeconds !== undefined) {
    extras.retryAfterSeconds = report.retryAfterSeconds;
    extras.waitKind = report.waitKind;
  }
  if (report.attempts !== undefined) {
    extras.attempts = report.attempts.made;
    extras.retriesExhausted = report.retriesExhausted === true;
  }
  const level = disclosureOption(options, 'scrubbed');
  const result: ToolResult = {
    type: 'tool_result',
    is_error: true,
    content: JSON.stringify(toWireError(report, extras, { disclosure: level })),
  };
  const id = options?.toolUseId;
  if (typeof id === 'string')
    return { type: result.type, tool_use_id: id, is_error: true, content: result.content };
  return result;
}

/** A process exit code: 2 for a configuration failure (a person must act), 1 for everything else. */
export function exitCodeFor(source: ReportSource): number {
  const report = asReport(source);
  return report.category === 'configuration' ? 2 : 1;
}
