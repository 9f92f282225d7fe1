import { createColors } from 'picocolors';
import { asReport, type ReportSource } from './classify-error.ts';
import type { ErrorReport } from './report.ts';
import { toDict } from './report.ts';
import { scrubAndCut } from './secrets.ts';

export interface PanelOptions {
  /** Force colour on or off; by default colour is used on a TTY. `NO_COLOR` always wins. */
  readonly color?: boolean | undefined;
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
  const report = printableReport(asReport(source));
  const colors = createColors(colorEnabled(options?.color));
  const accent = report.retryable ? colors.yellow : colors.red;
  const border = colors.dim('│');
  const label = (name: string) => colors.dim(name.padEnd(9));
  const lines = [
    `${accent('✖')} ${colors.bold(report.errorType)} ${accent(report.reason)} ${colors.dim(`(${report.category}${report.retryable ? ', retryable' : ', not retryable'})`)}`,
    `${border} ${report.message}`,
    `${border} ${label('where')}${whereLine(report)}`,
  ];
  const wait = describeWait(report.retryAfterSeconds);
  if (wait !== undefined) lines.push(`${border} ${label('wait')}${wait}`);
  lines.push(`${border} ${label('next')}${colors.cyan(report.nextStep)}`);
  if (report.userAction.detail !== undefined)
    lines.push(`${border} ${label('advice')}${report.userAction.detail}`);
  if (report.providerMetadata.requestId !== undefined) {
    lines.push(`${border} ${label('request')}${report.providerMetadata.requestId}`);
  }
  if (report.delivered !== undefined) {
    lines.push(
      `${border} ${label('delivered')}${report.delivered.chunks} chunks, ${report.delivered.characters} characters`,
    );
  }
  if (report.decidedBy !== undefined) {
    const { rule, evidence } = report.decidedBy;
    lines.push(
      `${border} ${colors.dim('decided by')} ${rule}${evidence === undefined ? '' : `: ${evidence}`}`,
    );
  }
  return lines.join('\n');
}

/** The report as pretty JSON. */
export function formatJson(source: ReportSource): string {
  const report = asReport(source);
  return JSON.stringify(toDict(report), null, 2);
}

function markdownCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The report as a markdown section (for issues, PR comments, chat). */
export function formatMarkdown(source: ReportSource): string {
  const report = printableReport(asReport(source));
  const rows: Array<[string, string]> = [
    ['reason', `\`${report.reason}\``],
    ['category', `\`${report.category}\``],
    ['retryable', report.retryable ? 'yes' : 'no'],
    ['next step', `\`${report.nextStep}\``],
    ['provider', report.provider],
    ['model', report.model ?? '—'],
  ];
  if (report.operation !== undefined) rows.push(['operation', report.operation]);
  if (report.providerMetadata.statusCode !== undefined)
    rows.push(['status', String(report.providerMetadata.statusCode)]);
  if (report.retryAfterSeconds !== undefined) rows.push(['wait', `${report.retryAfterSeconds} s`]);
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

/** What an agent needs to decide its next step: the step, why, and how long to wait. */
export function formatForLlm(source: ReportSource): string {
  const report = printableReport(asReport(source));
  const why = report.userAction.detail ?? report.message;
  const lines = [
    `The call failed: ${report.reason} (${report.category}).`,
    `nextStep: ${report.nextStep}`,
    `why: ${why}`,
  ];
  if (report.nextStep === 'retry') {
    lines.push(
      report.retryAfterSeconds !== undefined
        ? `wait: ${Math.ceil(report.retryAfterSeconds)} seconds before retrying`
        : 'wait: a few seconds (no wait was given)',
    );
  } else if (report.retryAfterSeconds !== undefined) {
    lines.push(`wait: ${Math.ceil(report.retryAfterSeconds)} seconds (the provider's stated wait)`);
  }
  lines.push(`retryable: ${report.retryable ? 'yes' : 'no'}`);
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

/** `{ error, category, detail, ...extras }`: the compact form for tool results and queues. */
export function toWireError(source: ReportSource, extras?: Record<string, unknown>): WireError {
  const report = asReport(source);
  const wire: WireError = { error: report.reason, category: report.category, detail: report.message };
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

export interface ToolResultOptions {
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
 * JSON, with `nextStep`, `retryable` and (when known) `retryAfterSeconds` added so the agent can act.
 */
export function toolResultFor(source: ReportSource, options: ToolResultOptions = {}): ToolResult {
  const report = asReport(source);
  const extras: Record<string, unknown> = { nextStep: report.nextStep, retryable: report.retryable };
  if (report.retryAfterSeconds !== undefined) extras.retryAfterSeconds = report.retryAfterSeconds;
  const result: ToolResult = {
    type: 'tool_result',
    is_error: true,
    content: JSON.stringify(toWireError(report, extras)),
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
