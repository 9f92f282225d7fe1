import type { Classification } from '@faultline/classify';
import { safeGet, TAXONOMY } from '@faultline/classify/toolkit';

// What `util.inspect`, `console.log` and Node's uncaught-error output print for a FaultlineError: a
// few lines a person can act on (what failed, what to do next, who answered, where the caller was),
// then the cause as Node prints it. The error's own stack holds no frames (its cause holds the SDK's),
// so the caller's frames are recorded when a failure is caught (`recordCallSite`) and shown here.

/** Where the caller's frames are kept: captured at the catch, formatted only when printed. */
const CALL_SITE: unique symbol = Symbol('faultline.callSite');

/** Frames captured at the catch; the ones in render's own files are dropped when printed. */
const CALL_SITE_FRAMES = 12;

/** The most frames of the caller's shown in the summary. */
const SHOWN_FRAMES = 3;

/**
 * Records on `error` the frames of whoever called `below` (a render entry that caught a failure),
 * for the summary. Captured with V8's structured stack, which is only formatted if the summary is
 * printed. Never throws.
 */
export function recordCallSite(error: object, below: (...args: never[]) => unknown): void {
  const limit = Error.stackTraceLimit;
  try {
    const holder: { stack?: string } = {};
    Error.stackTraceLimit = CALL_SITE_FRAMES;
    Error.captureStackTrace(holder, below);
    Object.defineProperty(error, CALL_SITE, { value: holder, configurable: true });
  } catch {
    // A frozen error or a runtime without captureStackTrace: the summary then shows no call site.
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Gives `to` the call site recorded on `from` (an error rebuilt with more facts keeps it). Never throws. */
export function keepCallSite(from: object, to: object): void {
  try {
    const holder = (from as { [CALL_SITE]?: unknown })[CALL_SITE];
    if (holder !== undefined) Object.defineProperty(to, CALL_SITE, { value: holder, configurable: true });
  } catch {
    // A frozen error: it keeps no call site.
  }
}

/** The directory of this module's file (render's `src` or `dist`), to tell its frames apart. */
function ownDirectory(): string | undefined {
  try {
    const url = import.meta.url;
    return typeof url === 'string' ? pathOf(url.slice(0, url.lastIndexOf('/') + 1)) : undefined;
  } catch {
    return undefined;
  }
}

function pathOf(location: string): string {
  return location.startsWith('file://') ? decodeURIComponent(location.slice('file://'.length)) : location;
}

/** The caller's frames: those outside render's own files and Node's internals. */
export function callerFrames(error: unknown): string[] {
  let stack: unknown;
  try {
    stack = safeGet(safeGet(error, CALL_SITE), 'stack');
  } catch {
    return [];
  }
  if (typeof stack !== 'string') return [];
  const own = ownDirectory();
  const frames = stack
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter(
      (line) => line.startsWith('at ') && !/\(node:|at node:|\(native\)|^at async Promise\./.test(line),
    );
  const callers = frames.filter((line) => own === undefined || !pathOf(locationOf(line)).startsWith(own));
  // Bundled into the caller's own file, render's frames cannot be told apart: show them all.
  return (callers.length > 0 ? callers : frames).slice(0, SHOWN_FRAMES);
}

/** The location of a formatted frame: `file:line:column`, with or without a function name. */
function locationOf(frame: string): string {
  const open = frame.lastIndexOf('(');
  return open === -1 ? frame.slice('at '.length).replace(/^async /, '') : frame.slice(open + 1, -1);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The summary lines of a FaultlineError, before its cause. Total: a field that cannot be read is left out. */
export function summaryLines(error: unknown): string[] {
  const name = safeGet(error, 'errorType');
  const message = safeGet(error, 'message');
  const classification = safeGet(error, 'classification') as Classification | undefined;
  const lines = [
    `${typeof name === 'string' ? name : 'FaultlineError'}: ${oneLine(typeof message === 'string' ? message : '', 300)}`,
  ];
  const reason = safeGet(classification, 'reason');
  if (typeof reason === 'string' && Object.hasOwn(TAXONOMY, reason)) {
    const row = TAXONOMY[reason as keyof typeof TAXONOMY];
    const retryable = safeGet(classification, 'retryable') === true ? 'retryable' : 'not retryable';
    lines.push(`  reason:    ${reason} (${safeGet(classification, 'category')}, ${retryable})`);
    const wait = safeGet(classification, 'retryAfterSeconds');
    const detail = safeGet(safeGet(classification, 'userAction'), 'detail');
    const after = typeof wait === 'number' && Number.isFinite(wait) ? ` after ${wait} s` : '';
    lines.push(
      `  next step: ${safeGet(classification, 'nextStep')}${after}: ${oneLine(typeof detail === 'string' ? detail : row.advice, 200)}`,
    );
  }
  const metadata = safeGet(error, 'metadata');
  const who: string[] = [];
  const provider = safeGet(error, 'provider') ?? safeGet(metadata, 'provider');
  if (typeof provider === 'string') who.push(`provider ${provider}`);
  const model = safeGet(error, 'model');
  if (typeof model === 'string') who.push(`model ${model}`);
  const status = safeGet(metadata, 'statusCode');
  if (typeof status === 'number') who.push(`HTTP ${status}`);
  const attempts = safeGet(safeGet(error, 'attempts'), 'made');
  if (typeof attempts === 'number' && attempts > 1) who.push(`${attempts} attempts`);
  if (who.length > 0) lines.push(`  from:      ${who.join(', ')}`);
  const frames = callerFrames(error);
  if (frames.length > 0) {
    lines.push(`  called at: ${frames[0]!.slice('at '.length)}`);
    for (const frame of frames.slice(1)) lines.push(`             ${frame.slice('at '.length)}`);
  }
  lines.push('  report:    error.toErrorReport()');
  return lines;
}

type Inspect = (value: unknown, options?: object) => string;

/** Errors whose summary is being printed: a cause chain that leads back to one prints it once. */
const PRINTING: WeakSet<object> = new WeakSet();

/** `[util.inspect.custom]` of a FaultlineError: the summary, then the cause as Node prints it. */
export function inspectSummary(error: object, depth: number, options: object, inspect: unknown): string {
  let lines: string[];
  try {
    lines = summaryLines(error);
  } catch {
    lines = ['FaultlineError'];
  }
  if (depth < 0) return `[${lines[0]}]`;
  if (PRINTING.has(error)) return `[Circular ${lines[0]}]`;
  const cause = safeGet(error, 'cause');
  if (cause === undefined) return lines.join('\n');
  PRINTING.add(error);
  let shown: string;
  try {
    const levels = safeGet(options, 'depth');
    shown =
      typeof inspect === 'function'
        ? (inspect as Inspect)(cause, {
            ...options,
            depth: typeof levels === 'number' ? levels - 1 : levels,
          })
        : String(safeGet(cause, 'stack') ?? cause);
  } catch {
    shown = '[the cause could not be printed]';
  } finally {
    PRINTING.delete(error);
  }
  return `${lines.join('\n')}\n  [cause]: ${shown.split('\n').join('\n  ')}`;
}
