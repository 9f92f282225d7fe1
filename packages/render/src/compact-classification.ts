import type { Classification } from '@faultline/classify';

// Memory (issue 17: a FaultlineError and its report retain no more than the SDK error): classify
// builds each classification with fresh sub-objects and adds its optional members one by one, so
// a held classification cost about 540 bytes. The same classification repacked as one literal,
// with its user action, recovery hints and deciding rule (with its evidence) shared between every
// error that has the same ones (they are frozen, like the classification itself), costs about a third
// of that. A burst of equal failures (the same 429 from the same provider) gives equal
// classifications, and each error still held its own ~120 B object (plus a boxed wait and a
// trust-set entry, ~160 B in all): the whole compact classification is shared too.
//
// The memos are keyed by the members themselves (strings classify takes from its tables, whose
// hashes V8 keeps), never by a string built per call: hashing a fresh 200-character key cost more
// than a microsecond a call. Maps and not a library: bounded memos of frozen values.

/** Sub-objects shared so far; past the bound a new one is frozen but not kept (a stream of distinct details cannot grow the memos). */
let sharedCount = 0;
const MAX_SHARED = 512;

/** The user actions by kind, then by detail (`undefined`: the action has no detail). */
const ACTIONS: Map<string, Map<string | undefined, Classification['userAction']>> = new Map();
/** The deciding rules by rule, then by evidence (`undefined`: no evidence). */
const DECIDERS: Map<string, Map<string | undefined, Classification['decidedBy']>> = new Map();
/** The recovery hints by their three flags (index rotateCredential·4 + fallback·2 + compress). */
const HINTS: Array<Classification['recovery'] | undefined> = [];

function memoOf<T>(
  table: Map<string, Map<string | undefined, T>>,
  outer: string,
): Map<string | undefined, T> {
  let inner = table.get(outer);
  if (inner === undefined) {
    inner = new Map();
    if (sharedCount < MAX_SHARED) table.set(outer, inner);
  }
  return inner;
}

function sharedAction(kind: Classification['userAction']['kind'], detail: string | undefined) {
  const memo = memoOf(ACTIONS, kind);
  const known = memo.get(detail);
  if (known !== undefined) return known;
  const action: Classification['userAction'] = Object.freeze(
    detail === undefined ? { kind } : { kind, detail },
  );
  if (sharedCount < MAX_SHARED) {
    memo.set(detail, action);
    sharedCount += 1;
  }
  return action;
}

function sharedDecider(rule: Classification['decidedBy']['rule'], evidence: string | undefined) {
  const memo = memoOf(DECIDERS, rule);
  const known = memo.get(evidence);
  if (known !== undefined) return known;
  const decider: Classification['decidedBy'] = Object.freeze(
    evidence === undefined ? { rule } : { rule, evidence },
  );
  if (sharedCount < MAX_SHARED) {
    memo.set(evidence, decider);
    sharedCount += 1;
  }
  return decider;
}

function sharedHints(rotateCredential: boolean, fallback: boolean, compress: boolean) {
  const index = (rotateCredential ? 4 : 0) + (fallback ? 2 : 0) + (compress ? 1 : 0);
  const known = HINTS[index];
  if (known !== undefined) return known;
  const hints = Object.freeze({ rotateCredential, fallback, compress });
  HINTS[index] = hints;
  return hints;
}

/**
 * Whole classifications, frozen, by their (shared) deciding rule, then the few last ones of each
 * compared member by member. Cleared when full rather than closed: waits differ per failure, so a
 * long-running process keeps sharing the current burst's.
 */
const WHOLE: Map<object, Classification[]> = new Map();
const MAX_WHOLE_DECIDERS = 256;
const MAX_WHOLE_PER_DECIDER = 8;

/** Same members, same values (`Object.is`: a wait of -0 is not one of 0), sub-objects by identity. */
function sameClassification(a: Classification, b: Classification, hasWait: boolean): boolean {
  return (
    a.category === b.category &&
    a.reason === b.reason &&
    a.retryable === b.retryable &&
    a.userAction === b.userAction &&
    a.recovery === b.recovery &&
    a.domain === b.domain &&
    a.httpStatus === b.httpStatus &&
    a.nextStep === b.nextStep &&
    a.callerAborted === b.callerAborted &&
    a.overridden === b.overridden &&
    'retryAfterSeconds' in a === hasWait &&
    Object.is(a.retryAfterSeconds, b.retryAfterSeconds)
  );
}

function sharedWhole(compact: Classification, hasWait: boolean): Classification {
  let known = WHOLE.get(compact.decidedBy);
  if (known === undefined) {
    if (WHOLE.size >= MAX_WHOLE_DECIDERS) WHOLE.clear();
    known = [];
    WHOLE.set(compact.decidedBy, known);
  }
  for (const candidate of known) if (sameClassification(candidate, compact, hasWait)) return candidate;
  Object.freeze(compact);
  if (known.length >= MAX_WHOLE_PER_DECIDER) known.shift();
  known.push(compact);
  return compact;
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
 * one object literal, the user action, recovery hints and deciding rule shared and frozen, and the
 * whole shared with equal ones. Anything of another shape is returned as it is. Total on a valid
 * classification.
 */
export function compactClassification(classification: Classification): Classification {
  try {
    if (!keysAre(Object.keys(classification), KEYS, 'retryAfterSeconds')) return classification;
    const { userAction, recovery, decidedBy } = classification;
    if (!keysAre(Object.keys(recovery), ['rotateCredential', 'fallback', 'compress'])) return classification;
    // Whether each sub-object was of the shape that is shared (the whole is shared only then).
    let sharable = true;
    let action = userAction;
    const actionKeys = Object.keys(userAction);
    if (keysAre(actionKeys, ['kind', 'detail']) && typeof userAction.detail === 'string')
      action = sharedAction(userAction.kind, userAction.detail);
    else if (keysAre(actionKeys, ['kind'])) action = sharedAction(userAction.kind, undefined);
    else sharable = false;
    const { rotateCredential, fallback, compress } = recovery;
    const hints =
      typeof rotateCredential === 'boolean' && typeof fallback === 'boolean' && typeof compress === 'boolean'
        ? sharedHints(rotateCredential, fallback, compress)
        : Object.freeze({ rotateCredential, fallback, compress });
    let decided = decidedBy;
    const decidedKeys = Object.keys(decidedBy);
    if (keysAre(decidedKeys, ['rule'])) decided = sharedDecider(decidedBy.rule, undefined);
    else if (keysAre(decidedKeys, ['rule', 'evidence']) && typeof decidedBy.evidence === 'string')
      decided = sharedDecider(decidedBy.rule, decidedBy.evidence);
    else sharable = false;
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
    return sharable ? sharedWhole(compact, hasWait) : compact;
  } catch {
    return classification;
  }
}
