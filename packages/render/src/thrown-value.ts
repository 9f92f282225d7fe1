import { messageOf } from '@faultline/classify/toolkit';
import { scrubAndCut } from './secrets.ts';

/** True for an `Error` from this realm or another one; false (never a throw) for anything else. */
export function isErrorLike(value: unknown): value is Error {
  if (value === null || typeof value !== 'object') return false;
  try {
    if (value instanceof Error) return true;
  } catch {
    return false;
  }
  try {
    return Object.prototype.toString.call(value) === '[object Error]';
  } catch {
    return false;
  }
}

/** A short, safe description of any thrown value (never reads more than `message`). */
export function describeThrown(value: unknown): string {
  try {
    switch (typeof value) {
      case 'string':
        return scrubAndCut(value);
      case 'number':
      case 'boolean':
      case 'bigint':
        return `${typeof value} thrown: ${String(value)}`;
      case 'symbol':
        return scrubAndCut(`symbol thrown: ${value.toString()}`);
      case 'undefined':
        return 'undefined was thrown';
      case 'function':
        return 'a function was thrown';
      default: {
        if (value === null) return 'null was thrown';
        const message = messageOf(value, 16 * 1024);
        return message.length > 0 ? scrubAndCut(message) : 'a non-Error object was thrown';
      }
    }
  } catch {
    return 'an unreadable value was thrown';
  }
}

/**
 * The normalised form of a thrown value that is not an `Error` (a string, `null`, a plain object,
 * a Proxy): it becomes the `cause` of a FaultlineError so the cause is never dropped, and keeps
 * the original in `value`.
 */
export class ThrownValueError extends Error {
  readonly value: unknown;
  constructor(value: unknown) {
    super(describeThrown(value));
    this.value = value;
  }
}
Object.defineProperty(ThrownValueError.prototype, 'name', {
  value: 'ThrownValueError',
  writable: true,
  configurable: true,
});

/** `value` itself when it is an Error, otherwise a `ThrownValueError` holding it. */
export function normaliseCause(value: unknown): Error {
  return isErrorLike(value) ? value : new ThrownValueError(value);
}
