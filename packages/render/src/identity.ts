import { safeGet } from '@faultline/classify/toolkit';

/**
 * Cross-realm identity: a duplicate install of this package (or another realm) builds errors with
 * its own classes, so `instanceof` lies. Every FaultlineError carries this registered symbol.
 */
export const FAULTLINE_ERROR_MARKER: unique symbol = Symbol.for('faultline.error') as never;
/** The errorTypes of the class and every ancestor, e.g. `['CompletionModelNotFoundError', 'CompletionError', 'FaultlineError']`. */
export const FAULTLINE_ERROR_TYPES: unique symbol = Symbol.for('faultline.error.types') as never;

/**
 * Classifications this copy of render has validated (frozen), and errors it built around one:
 * read as they are, without a re-parse. A value from another copy of the package (or a hand-made
 * object) is in neither set and goes through the schemas.
 */
export const TRUSTED_CLASSIFICATIONS: WeakSet<object> = new WeakSet();
export const TRUSTED_ERRORS: WeakSet<object> = new WeakSet();

/** Freezes a classification that is known to be valid and marks it trusted. */
export function trustClassification<T extends object>(classification: T): T {
  const record = classification as Record<string, unknown>;
  if (typeof record.userAction === 'object' && record.userAction !== null) Object.freeze(record.userAction);
  if (typeof record.recovery === 'object' && record.recovery !== null) Object.freeze(record.recovery);
  Object.freeze(classification);
  TRUSTED_CLASSIFICATIONS.add(classification);
  return classification;
}

/** No cause chain is followed further than this (a 10,000-deep chain costs 100 steps). */
export const MAX_CAUSE_DEPTH = 100;

/** True when `value` carries the faultline marker, whichever copy of the package built it. */
export function hasFaultlineMarker(value: unknown): boolean {
  return safeGet(value, FAULTLINE_ERROR_MARKER) === true;
}

/** The errorTypes a marked value declares (its class and ancestors). */
export function faultlineErrorTypes(value: unknown): readonly string[] {
  const types = safeGet(value, FAULTLINE_ERROR_TYPES);
  if (!Array.isArray(types)) return [];
  try {
    return types.filter((type): type is string => typeof type === 'string');
  } catch {
    return [];
  }
}

/**
 * The cause chain of `value`, the value first, following `cause` only; cycle-guarded and bounded by
 * `MAX_CAUSE_DEPTH`. Never throws (getters that throw end the chain).
 */
export function causeLinks(value: unknown, maxDepth: number = MAX_CAUSE_DEPTH): unknown[] {
  const links: unknown[] = [];
  const seen = new Set<unknown>();
  let current: unknown = value;
  while (current !== undefined && current !== null && links.length < maxDepth && !seen.has(current)) {
    links.push(current);
    seen.add(current);
    current = safeGet(current, 'cause');
  }
  return links;
}

/**
 * The nearest marked FaultlineError on the cause chain (the value itself first), whichever copy of
 * faultline built it; cycle-guarded, bounded, never throws. What an HTTP handler, a tracer or a
 * logger uses to find the classified failure under an app's own wrapping errors.
 */
export function nearestFaultlineError(value: unknown, skipHead = false): unknown {
  const links = causeLinks(value);
  for (let index = skipHead ? 1 : 0; index < links.length; index++) {
    if (hasFaultlineMarker(links[index])) return links[index];
  }
  return undefined;
}
