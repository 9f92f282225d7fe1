import { type ErrorReport, toDict, toErrorReport } from '@faultline/render';
import { nearestFaultlineError } from '@faultline/render/toolkit';

/** A pino serializer: takes the logged value, returns what is written. */
export type ErrorSerializer = (value: unknown) => unknown;

/** What the serializer writes for an error with a FaultlineError on its cause chain. */
export interface SerializedFaultlineError {
  /** The thrown error's class (the app's wrapper keeps its own), as pino's `err` serializer names it. */
  readonly type: string;
  /** The report's message: scrubbed of secrets by render. */
  readonly message: string;
  /** `type: message`, then the thrown error's stack frames (never the SDK error's text). */
  readonly stack?: string;
  /** The whole report: classification, advice, provider metadata; never the raw body. */
  readonly report: Record<string, unknown>;
}

/** The frames of a stack, without its first line(s) of message text (which may be the SDK's words). */
function framesOf(value: unknown): string | undefined {
  let stack: unknown;
  try {
    stack = (value as { stack?: unknown }).stack;
  } catch {
    return undefined;
  }
  if (typeof stack !== 'string') return undefined;
  const frames = stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 50);
  return frames.length > 0 ? frames.join('\n') : undefined;
}

/**
 * An `err` serializer for pino: an error with a FaultlineError anywhere on its cause chain is
 * logged as its report (`{ type, message, stack, report }`), never as the SDK error's own fields
 * (its raw body, request headers, the prompt it was sent). pino's own `err` serializer follows
 * `cause` and joins every message and stack on the chain, the SDK's included, which is why it is
 * not used for these. Any other value goes to `fallback` (pass `pino.stdSerializers.err`), or is
 * returned as is. Never throws.
 *
 * ```ts
 * const logger = pino({ serializers: { err: faultlineErrorSerializer(pino.stdSerializers.err) } });
 * ```
 */
export function faultlineErrorSerializer<Value = unknown>(
  fallback?: (value: Value) => unknown,
): ErrorSerializer {
  // The serializer itself never throws (pino calls it on every log line): a fallback that is not a
  // function is refused here, at setup, where the mistake is made.
  if (fallback !== undefined && typeof fallback !== 'function') {
    const error = new TypeError(
      `faultlineErrorSerializer: fallback must be a function (pino.stdSerializers.err) or undefined (got ${typeof fallback}); it takes no options`,
    );
    (error as TypeError & { code: string }).code = 'ERR_INVALID_ARG_TYPE';
    throw error;
  }
  return (value) => {
    if (nearestFaultlineError(value) === undefined)
      return fallback === undefined ? value : fallback(value as Value);
    const report: ErrorReport = toErrorReport(value);
    const frames = framesOf(value);
    const head = `${report.errorType}: ${report.message}`;
    const serialized: SerializedFaultlineError = {
      type: report.errorType,
      message: report.message,
      stack: frames === undefined ? head : `${head}\n${frames}`,
      report: toDict(report),
    };
    return serialized;
  };
}
