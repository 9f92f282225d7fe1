import type { Classification } from '@faultline/classify';

// Memory (issue 17: a FaultlineError and its report retain no more than the SDK error): classify
// builds each classification with fresh sub-objects and adds its optional members one by one, so
// a held classification cost about 540 bytes. The same classification repacked as one literal,
// with its user action, recovery hints and deciding rule (with its evidence) shared between every
// error that has the same ones (they are frozen, like the classification itself), costs about a third
// of that.

// A burst of equal failures (the same 429 from the same provider) gives equal classifications, and
// each error still held its own ~120 B object (plus a boxed wait and a trust-set entry, ~160 B in
// all): the whole compact classification is shared too, frozen like its sub-objects, keyed by its
// members (its sub-objects by their sharing keys).

/** Frozen sub-objects, one per distinct value; bounded, so a stream of distinct details cannot grow it. */
const SHARED: Map<string, object> = new Map();
const MAX_SHARED = 512;

function shared<T extends object>(key: string, value: T): T {
  const known = SHARED.get(key);
  if (known !== undefined) return known as T;
  Object.freeze(value);
  if (SHARED.size < MAX_SHARED) SHARED.set(key, value);
  return value;
}

/**
 * Whole classifications, frozen, one per distinct value. Cleared when full rather than closed (as
 * `SHARED` is): its keys hold per-failure values (the wait), so a long-running process keeps sharing
 * the current burst's. A Map and not a library: a bounded memo of frozen values.
 */
const SHARED_WHOLE: Map<string, Classification> = new Map();
const MAX_SHARED_WHOLE = 256;

function sharedWhole(key: string, value: Classification): Classification {
  const known = SHARED_WHOLE.get(key);
  if (known !== undefined) return known;
  if (SHARED_WHOLE.size >= MAX_SHARED_WHOLE) SHARED_WHOLE.clear();
  SHARED_WHOLE.set(key, Object.freeze(value));
  return value;
}

const KEYS = [
  'category',
  'reason',
  'retryable',
  'userAction',
  'recovery',
  'domain',
  'httpStatus',
  'nextStep',
  'callerAborted',
  'overridden',
  'decidedBy',
] as const;

/** True when `keys` are exactly `expected`, in order, optionally followed by `last`. */
function keysAre(keys: readonly string[], expected: readonly string[], last?: string): boolean {
  const extra = keys.length - expected.length;
  if (extra !== 0 && !(extra === 1 && keys[keys.length - 1] === last)) return false;
  for (let index = 0; index < expected.length; index++) if (keys[index] !== expected[index]) return false;
  return true;
}

/**
 * The same classification (same members, same order, same values; deep-equal) in a compact form:
 * one object literal, the user action, recovery hints and deciding rule shared and frozen. Anything of another
 * shape is returned as it is. Total on a valid classification.
 */
export function compactClassification(classification: Classification): Classification {
  try {
    if (!keysAre(Object.keys(classification), KEYS, 'retryAfterSeconds')) return classification;
    const { userAction, recovery, decidedBy } = classification;
    if (!keysAre(Object.keys(recovery), ['rotateCredential', 'fallback', 'compress'])) return classification;
    let action = userAction;
    // The sharing key of each sub-object; undefined when one is of another shape (not shared).
    let actionKey: string | undefined;
    const actionKeys = Object.keys(userAction);
    if (keysAre(actionKeys, ['kind', 'detail']) && typeof userAction.detail === 'string') {
      actionKey = `a\0${userAction.kind}\0${userAction.detail}`;
      action = shared(actionKey, { kind: userAction.kind, detail: userAction.detail });
    } else if (keysAre(actionKeys, ['kind'])) {
      actionKey = `a\0${userAction.kind}`;
      action = shared(actionKey, { kind: userAction.kind });
    }
    const hintsKey = `r\0${recovery.rotateCredential}${recovery.fallback}${recovery.compress}`;
    const hints = shared(hintsKey, {
      rotateCredential: recovery.rotateCredential,
      fallback: recovery.fallback,
      compress: recovery.compress,
    });
    let decidedKey: string | undefined;
    let decided = decidedBy;
    const decidedKeys = Object.keys(decidedBy);
    if (keysAre(decidedKeys, ['rule'])) {
      decidedKey = `d\0${decidedBy.rule}`;
      decided = shared(decidedKey, { rule: decidedBy.rule });
    } else if (keysAre(decidedKeys, ['rule', 'evidence']) && typeof decidedBy.evidence === 'string') {
      decidedKey = `d\0${decidedBy.rule}\0${decidedBy.evidence}`;
      decided = shared(decidedKey, { rule: decidedBy.rule, evidence: decidedBy.evidence });
    }
    const { category, reason, retryable, domain, httpStatus, nextStep, callerAborted, overridden } =
      classification;
    const hasWait = 'retryAfterSeconds' in classification;
    const wait = classification.retryAfterSeconds;
    const compact: Classification = hasWait
      ? {
          category,
          reason,
          retryable,
          userAction: action,
          recovery: hints,
          domain,
          httpStatus,
          nextStep,
          callerAborted,
          overridden,
          decidedBy: decided,
          retryAfterSeconds: wait,
        }
      : {
          category,
          reason,
          retryable,
          userAction: action,
          recovery: hints,
          domain,
          httpStatus,
          nextStep,
          callerAborted,
          overridden,
          decidedBy: decided,
        };
    // Shared only when every member is a primitive whose text is its value (the enums are strings,
    // checked by classify) and every sub-object was shared (a -0 wait, which prints as 0, is not).
    if (
      actionKey === undefined ||
      decidedKey === undefined ||
      (typeof httpStatus !== 'number' && httpStatus !== null) ||
      typeof retryable !== 'boolean' ||
      typeof callerAborted !== 'boolean' ||
      typeof overridden !== 'boolean' ||
      (hasWait && (typeof wait !== 'number' || Object.is(wait, -0)))
    )
      return compact;
    return sharedWhole(
      `${category}\0${reason}\0${retryable}\0${domain}\0${httpStatus}\0${nextStep}\0${callerAborted}\0${overridden}\0${hasWait ? wait : '-'}\0${hintsKey}\0${actionKey}\0${decidedKey}`,
      compact,
    );
  } catch {
    return classification;
  }
}
