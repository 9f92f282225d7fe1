// Zod-free checks of the taxonomy, for the paths an adapter loads: classify(), render's errors and
// reports, the stream guards. Importing zod costs about 60 ms, three times everything else an
// adapter loads (issue 17), so these paths validate with plain code built from the same value arrays
// as the zod schemas (values.ts). Each check gives the verdict and the output of the zod schema of
// the same name in schemas.ts (which stays the public, documented form); a fast-check differential
// test (checks.test.ts) holds them equal. Hand-written on purpose: the point is to load no library.
import type {
  Classification as ClassificationType,
  FailureOrigin as FailureOriginType,
  FailureReason as FailureReasonType,
  NetworkPhase as NetworkPhaseType,
  SdkCondition as SdkConditionType,
} from './schemas.ts';
import {
  ERROR_CATEGORIES,
  ERROR_DOMAINS,
  FAILURE_ORIGINS,
  FAILURE_REASONS,
  MAX_EVIDENCE_LENGTH,
  NETWORK_PHASES,
  NEXT_STEPS,
  RULE_IDS,
  SDK_CONDITIONS,
  USER_ACTION_KINDS,
} from './values.ts';

/** A check's answer, shaped like the part of zod's `safeParse` result the callers read. */
export type CheckResult<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly data?: undefined };

/** A zod-free check with the `safeParse` of the zod schema it mirrors. */
export interface Check<T> {
  safeParse(value: unknown): CheckResult<T>;
}

/** A check of a closed set of strings, with zod's `options`. */
export interface EnumCheck<T extends string> extends Check<T> {
  readonly options: readonly T[];
  has(value: unknown): value is T;
}

const FAILED: CheckResult<never> = Object.freeze({ success: false });

/** A check from a parse that returns `undefined` for an invalid value (and may throw: a hostile getter). */
export function checkOf<T>(parse: (value: unknown) => T | undefined): Check<T> {
  return {
    safeParse(value: unknown): CheckResult<T> {
      let data: T | undefined;
      try {
        data = parse(value);
      } catch {
        return FAILED;
      }
      return data === undefined ? FAILED : { success: true, data };
    },
  };
}

export function enumCheck<const T extends string>(options: readonly T[]): EnumCheck<T> {
  const set: ReadonlySet<unknown> = new Set(options);
  const has = (value: unknown): value is T => set.has(value);
  return {
    options,
    has,
    safeParse: (value: unknown): CheckResult<T> => (has(value) ? { success: true, data: value } : FAILED),
  };
}

/** zod's `z.object` input: any non-null object that is not an array (zod's `isObject`). */
export function isObjectInput(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** zod's `z.number()`: finite numbers only. */
export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** zod 4's `.int()`: a safe integer. */
export function isSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/** zod 4's string `.max(n)`: counted in code points (a surrogate pair counts once). */
export function fitsLength(text: string, maximum: number): boolean {
  if (text.length <= maximum) return true;
  let count = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    if ((text.charCodeAt(index) & 0xfc00) === 0xd800 && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      count--;
      index++;
    }
  }
  return count <= maximum;
}

/** Marks an invalid optional field (distinct from an absent one, which is simply left out). */
export const INVALID: unique symbol = Symbol('invalid');

/**
 * zod's reading of an optional key: absent → left out (`undefined`); present and `undefined` → kept
 * as `undefined`; otherwise the value when `valid`, else `INVALID`.
 */
export function optionalField<T>(
  input: Record<string, unknown>,
  key: string,
  valid: (value: unknown) => value is T,
): { readonly value: T | undefined } | typeof INVALID | undefined {
  const value = input[key];
  if (value === undefined) return key in input ? { value: undefined } : undefined;
  return valid(value) ? { value } : INVALID;
}

export const ErrorCategory: EnumCheck<ClassificationType['category']> = enumCheck(ERROR_CATEGORIES);
export type ErrorCategory = ClassificationType['category'];
export const FailureReason: EnumCheck<FailureReasonType> = enumCheck(FAILURE_REASONS);
export type FailureReason = FailureReasonType;
export const UserActionKind: EnumCheck<ClassificationType['userAction']['kind']> =
  enumCheck(USER_ACTION_KINDS);
export const ErrorDomain: EnumCheck<ClassificationType['domain']> = enumCheck(ERROR_DOMAINS);
export const NextStep: EnumCheck<ClassificationType['nextStep']> = enumCheck(NEXT_STEPS);
export const FailureOrigin: EnumCheck<FailureOriginType> = enumCheck(FAILURE_ORIGINS);
export type FailureOrigin = FailureOriginType;
export const NetworkPhase: EnumCheck<NetworkPhaseType> = enumCheck(NETWORK_PHASES);
export type NetworkPhase = NetworkPhaseType;
export const SdkCondition: EnumCheck<SdkConditionType> = enumCheck(SDK_CONDITIONS);
export type SdkCondition = SdkConditionType;
export const RuleId: EnumCheck<ClassificationType['decidedBy']['rule']> = enumCheck(RULE_IDS);

const isString = (value: unknown): value is string => typeof value === 'string';
const isNonNegative = (value: unknown): value is number => isFiniteNumber(value) && value >= 0;
const isEvidence = (value: unknown): value is string =>
  typeof value === 'string' && fitsLength(value, MAX_EVIDENCE_LENGTH);

function readUserAction(value: unknown): ClassificationType['userAction'] | undefined {
  if (!isObjectInput(value)) return undefined;
  const kind = value.kind;
  if (!UserActionKind.has(kind)) return undefined;
  const detail = optionalField(value, 'detail', isString);
  if (detail === INVALID) return undefined;
  return detail === undefined ? { kind } : { kind, detail: detail.value };
}

function readRecovery(value: unknown): ClassificationType['recovery'] | undefined {
  if (!isObjectInput(value)) return undefined;
  const { rotateCredential, fallback, compress } = value;
  if (typeof rotateCredential !== 'boolean' || typeof fallback !== 'boolean' || typeof compress !== 'boolean')
    return undefined;
  return { rotateCredential, fallback, compress };
}

/** `DecidedBy` (schemas.ts); `undefined` gives its default, `assigned`. */
function readDecidedBy(value: unknown): ClassificationType['decidedBy'] | undefined {
  if (value === undefined) return { rule: 'assigned' };
  if (!isObjectInput(value)) return undefined;
  const rule = value.rule;
  if (!RuleId.has(rule)) return undefined;
  const evidence = optionalField(value, 'evidence', isEvidence);
  if (evidence === INVALID) return undefined;
  return evidence === undefined ? { rule } : { rule, evidence: evidence.value };
}

/**
 * `Classification.safeParse(value).data` without zod: a new object with the schema's keys in its
 * order, unknown keys dropped, `decidedBy` defaulted; `undefined` when zod would reject the value.
 * May throw where zod would (a getter that throws); `Classification.safeParse` below never does.
 */
export function parseClassification(value: unknown): ClassificationType | undefined {
  if (!isObjectInput(value)) return undefined;
  const category = value.category;
  if (!ErrorCategory.has(category)) return undefined;
  const reason = value.reason;
  if (!FailureReason.has(reason)) return undefined;
  const retryable = value.retryable;
  if (typeof retryable !== 'boolean') return undefined;
  const userAction = readUserAction(value.userAction);
  if (userAction === undefined) return undefined;
  const recovery = readRecovery(value.recovery);
  if (recovery === undefined) return undefined;
  const domain = value.domain;
  if (!ErrorDomain.has(domain)) return undefined;
  const httpStatus = value.httpStatus;
  if (!isSafeInteger(httpStatus) || httpStatus < 400 || httpStatus > 599) return undefined;
  const nextStep = value.nextStep;
  if (!NextStep.has(nextStep)) return undefined;
  const retryAfterSeconds = optionalField(value, 'retryAfterSeconds', isNonNegative);
  if (retryAfterSeconds === INVALID) return undefined;
  const callerAborted = value.callerAborted;
  if (typeof callerAborted !== 'boolean') return undefined;
  const overridden = value.overridden;
  if (typeof overridden !== 'boolean') return undefined;
  const decidedBy = readDecidedBy(value.decidedBy);
  if (decidedBy === undefined) return undefined;
  const classification: ClassificationType = {
    category,
    reason,
    retryable,
    userAction,
    recovery,
    domain,
    httpStatus,
    nextStep,
  } as ClassificationType;
  if (retryAfterSeconds !== undefined) classification.retryAfterSeconds = retryAfterSeconds.value;
  classification.callerAborted = callerAborted;
  classification.overridden = overridden;
  classification.decidedBy = decidedBy;
  return classification;
}

/** The zod-free twin of `Classification` (schemas.ts): same verdict, same output. */
export const Classification: Check<ClassificationType> = checkOf(parseClassification);
export type Classification = ClassificationType;
