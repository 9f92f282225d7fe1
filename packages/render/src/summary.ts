import type { Classification } from '@faultline/classify';
import { safeGet, TAXONOMY } from '@faultline/classify/toolkit';

// The stack a FaultlineError that wraps a cause shows (what Node prints for an uncaught one, and
// `util.inspect`, `console.log`, loggers that write `stack`): a few lines a person can act on (what
// failed, what to do next, who answered), then the caller's frames. Its own frames would be render's
// (it is built with none: its cause holds the SDK's), so the caller's are recorded when a failure
// is caught (`recordCallSite`) and formatted only when the stack is read, as V8 formats its own.

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

/** The summary lines of a FaultlineError: its name and message, reason, next step, who answered. Total. */
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
  lines.push('  report:    error.toErrorReport()');
  return lines;
}

/** The summary, then the caller's frames in the usual `    at …` form. Total. */
export function summaryStack(error: unknown): string {
  try {
    return [...summaryLines(error), ...callerFrames(error).map((frame) => `    ${frame}`)].join('\n');
  } catch {
    return 'FaultlineError';
  }
}

/**
 * Gives a wrapping error (built with no frames of its own) the summary as its `stack`, formatted on
 * the first read. Assigning `stack` replaces it, as on any error. Never throws.
 */
export function installSummaryStack(error: object): void {
  try {
    Object.defineProperty(error, 'stack', {
      configurable: true,
      enumerable: false,
      get() {
        const value = summaryStack(error);
        Object.defineProperty(error, 'stack', { value, writable: true, configurable: true });
        return value;
      },
      set(value: unknown) {
        Object.defineProperty(error, 'stack', { value, writable: true, configurable: true });
      },
    });
  } catch {
    // A frozen error keeps the stack it was built with.
  }
}
