import type { Classification } from '@faultline/classify';

// Memory (issue 17: a FaultlineError and its report retain no more than the SDK error): classify
// builds each classification with fresh sub-objects and adds its optional members one by one, so
// a held classification cost about 540 bytes. The same classification repacked as one literal,
// with its user action, recovery hints and deciding rule (with its evidence) shared between every
// error that has the same ones (they are frozen, like the classification itself), costs about a third
// of that.

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
    const actionKeys = Object.keys(userAction);
    if (keysAre(actionKeys, ['kind', 'detail']) && typeof userAction.detail === 'string')
      action = shared(`a\0${userAction.kind}\0${userAction.detail}`, {
        kind: userAction.kind,
        detail: userAction.detail,
      });
    else if (keysAre(actionKeys, ['kind']))
      action = shared(`a\0${userAction.kind}`, { kind: userAction.kind });
    const hints = shared(`r\0${recovery.rotateCredential}${recovery.fallback}${recovery.compress}`, {
      rotateCredential: recovery.rotateCredential,
      fallback: recovery.fallback,
      compress: recovery.compress,
    });
    const decidedKeys = Object.keys(decidedBy);
    const decided = keysAre(decidedKeys, ['rule'])
      ? shared(`d\0${decidedBy.rule}`, { rule: decidedBy.rule })
      : keysAre(decidedKeys, ['rule', 'evidence']) && typeof decidedBy.evidence === 'string'
        ? shared(`d\0${decidedBy.rule}\0${decidedBy.evidence}`, {
            rule: decidedBy.rule,
            evidence: decidedBy.evidence,
          })
        : decidedBy;
    const { category, reason, retryable, domain, httpStatus, nextStep, callerAborted, overridden } =
      classification;
    const wait = classification.retryAfterSeconds;
    return 'retryAfterSeconds' in classification
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
  } catch {
    return classification;
  }
}
