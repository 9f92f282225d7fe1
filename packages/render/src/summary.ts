import type { Classification } from '@faultline/classify';
import { safeGet, TAXONOMY } from '@faultline/classify/toolkit';
import { hasFaultlineMarker } from './identity.ts';
import { nextStepFor, readDelivered } from './report.ts';

// The stack a FaultlineError that wraps a cause shows (what Node prints for an uncaught one, and
// `util.inspect`, `console.log`, loggers that write `stack`): a few lines a person can act on (what
// failed, what to do next, who answered), then the caller's frames. The error is built with no
// frames of its own; the caller's are read from its cause's stack, where they follow render's own
// frames (an SDK error is made below the caller's `await`), when the stack is first read: nothing
// is captured or formatted when the error is built.

/** The most frames of the caller's shown in the summary. */
const SHOWN_FRAMES = 3;

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

/** The caller's frames in the cause's stack: those after the last of render's own, Node's internals left out. */
export function callerFrames(error: unknown): string[] {
  const cause = safeGet(error, 'cause');
  // A FaultlineError wrapping another (a stream guard's, a context wrapper): the inner one's caller.
  if (hasFaultlineMarker(cause)) return callerFrames(cause);
  const stack = safeGet(cause, 'stack');
  const own = ownDirectory();
  if (typeof stack !== 'string' || own === undefined) return [];
  const frames = stack
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '));
  let last = -1;
  for (let index = 0; index < frames.length; index++)
    if (pathOf(locationOf(frames[index]!)).startsWith(own)) last = index;
  if (last === -1) return [];
  return frames
    .slice(last + 1)
    .filter((line) => !/\(node:|at node:|\(native\)|^at async Promise\./.test(line))
    .slice(0, SHOWN_FRAMES);
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
    // The same words as the panel: a retryable failure that outlived its retries says so, and its
    // next step (fallback) carries no wait, which was the wait before a retry of this call.
    const exhausted = safeGet(safeGet(error, 'attempts'), 'exhausted') === true;
    const retryable =
      safeGet(classification, 'retryable') === true
        ? exhausted
          ? 'retryable, retries exhausted'
          : 'retryable'
        : 'not retryable';
    lines.push(`  reason:    ${reason} (${safeGet(classification, 'category')}, ${retryable})`);
    const nextStep = nextStepFor(
      reason as keyof typeof TAXONOMY,
      safeGet(classification, 'nextStep'),
      readDelivered(safeGet(safeGet(error, 'metadata'), 'delivered')),
    );
    const wait = safeGet(classification, 'retryAfterSeconds');
    const detail = safeGet(safeGet(classification, 'userAction'), 'detail');
    const after =
      nextStep === 'retry' && typeof wait === 'number' && Number.isFinite(wait) ? ` after ${wait} s` : '';
    const advice = exhausted
      ? 'The retries ran out: fall back to another model or provider, or try again later.'
      : typeof detail === 'string'
        ? detail
        : row.advice;
    lines.push(`  next step: ${nextStep}${after}: ${oneLine(advice, 200)}`);
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
