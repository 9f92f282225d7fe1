// The zod-free check of a report, for the paths an adapter loads (a report built from a foreign
// copy's error, a value handed to the formatters). It gives the verdict and the output of the public
// zod schema `ErrorReport` (report-schema.ts, what `fromDict` uses); report-check.test.ts holds the
// two equal with fast-check. Hand-written, not another schema library: importing zod costs about
// 60 ms (issue 17) and the point is to load nothing; the few rules zod applies (strict keys read with
// for…in, optional keys kept when present as undefined, strings measured in code points) are
// copied exactly, which a second library would not do.
import {
  ERROR_CATEGORIES,
  ERROR_DOMAINS,
  FAILURE_ORIGINS,
  FAILURE_REASONS,
  MAX_EVIDENCE_LENGTH,
  NETWORK_PHASES,
  NEXT_STEPS,
  RULE_IDS,
  USER_ACTION_KINDS,
} from '@faultline/classify/toolkit';
import type { ErrorReport as ErrorReportType } from './report-schema.ts';
import { MAX_MESSAGE_LENGTH } from './secrets.ts';

/** What a field reader returns for a value zod would reject. */
const INVALID: unique symbol = Symbol('invalid');
type Reader = (value: unknown) => unknown;

/** A field: its key, whether it may be absent, and its reader. */
type Field = readonly [key: string, optional: boolean, read: Reader];

/** zod 4's string `.max(n)`: counted in code points (a surrogate pair counts once). */
function fitsLength(text: string, maximum: number): boolean {
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

const setOf = (values: readonly string[]): ReadonlySet<unknown> => new Set(values);

function oneOf(values: readonly string[]): Reader {
  const set = setOf(values);
  return (value) => (set.has(value) ? value : INVALID);
}

function text(maximum: number): Reader {
  return (value) => (typeof value === 'string' && fitsLength(value, maximum) ? value : INVALID);
}

const boolean: Reader = (value) => (typeof value === 'boolean' ? value : INVALID);

/** zod 4's `z.number().int()` with bounds: a safe integer. */
function integer(minimum = Number.NEGATIVE_INFINITY, maximum = Number.POSITIVE_INFINITY): Reader {
  return (value) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum && value <= maximum
      ? value
      : INVALID;
}

/** zod's `z.number().nonnegative()`: finite and ≥ 0. */
const nonNegative: Reader = (value) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : INVALID;

/**
 * zod's `.strict()` object: any non-array object; every key `for…in` lists must be a field; the
 * output has the fields in order, an optional one kept when its key is present (even as undefined).
 */
function strictObject(fields: readonly Field[]): Reader {
  const keys = new Set(fields.map(([key]) => key));
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return INVALID;
    const record = input as Record<string, unknown>;
    const output: Record<string, unknown> = {};
    for (const [key, optional, read] of fields) {
      const value = record[key];
      if (value === undefined && optional) {
        if (key in record) output[key] = undefined;
        continue;
      }
      const result = read(value);
      if (result === INVALID) return INVALID;
      output[key] = result;
    }
    for (const key in record) if (!keys.has(key)) return INVALID;
    return output;
  };
}

/** The version of the `ErrorReport` shape. Bumped on any breaking change to the schema. */
export const ERROR_REPORT_SCHEMA_VERSION = 2;

/** The values of `WaitKind` (report-schema.ts): what a report's wait means. */
export const WAIT_KINDS = ['retry_after', 'quota_reset', 'provider_wait'] as const;

const shortText = text(512);

const waitsMs: Reader = (value) => {
  if (!Array.isArray(value)) return INVALID;
  const wait = integer(0);
  const output: unknown[] = [];
  for (let index = 0; index < value.length; index++) {
    const result = wait(value[index]);
    if (result === INVALID) return INVALID;
    output.push(result);
  }
  return output.length <= 100 ? output : INVALID;
};

/** A report's `providerMetadata`: part of the report's reader, built with it. */
function providerMetadataReader(): Reader {
  return strictObject([
    ['origin', false, oneOf(FAILURE_ORIGINS)],
    ['statusCode', true, integer()],
    ['requestId', true, shortText],
    ['providerCode', true, shortText],
    ['providerType', true, shortText],
    ['sdkErrorType', true, shortText],
    ['networkCode', true, shortText],
    ['networkPhase', true, oneOf(NETWORK_PHASES)],
    ['sdkAttempts', true, integer(0)],
  ]);
}

let readReport: Reader | undefined;

/**
 * The report's reader, built on the first check rather than at import: only a report from a foreign
 * copy or one handed to the formatters is checked, and building it (eight sets, thirty readers)
 * was among the largest top-level work on an adapter's import (issue 17).
 */
function reportReader(): Reader {
  readReport ??= strictObject([
    ['schemaVersion', false, (value) => (value === ERROR_REPORT_SCHEMA_VERSION ? value : INVALID)],
    ['errorType', false, shortText],
    ['message', false, text(MAX_MESSAGE_LENGTH)],
    ['category', false, oneOf(ERROR_CATEGORIES)],
    ['reason', false, oneOf(FAILURE_REASONS)],
    ['retryable', false, boolean],
    [
      'userAction',
      false,
      strictObject([
        ['kind', false, oneOf(USER_ACTION_KINDS)],
        ['detail', true, text(MAX_MESSAGE_LENGTH)],
      ]),
    ],
    ['nextStep', false, oneOf(NEXT_STEPS)],
    [
      'recovery',
      false,
      strictObject([
        ['rotateCredential', false, boolean],
        ['fallback', false, boolean],
        ['compress', false, boolean],
      ]),
    ],
    ['domain', false, oneOf(ERROR_DOMAINS)],
    ['httpStatus', false, integer(400, 599)],
    ['provider', false, shortText],
    ['model', false, (value) => (value === null ? null : shortText(value))],
    ['operation', true, shortText],
    ['retryAfterSeconds', true, nonNegative],
    ['waitKind', true, oneOf(WAIT_KINDS)],
    ['retryOnlyIfIdempotent', false, boolean],
    [
      'attempts',
      true,
      strictObject([
        ['made', false, integer(1)],
        ['waitsMs', false, waitsMs],
      ]),
    ],
    ['retriesExhausted', true, boolean],
    ['callerAborted', false, boolean],
    ['providerMetadata', false, providerMetadataReader()],
    [
      'delivered',
      true,
      strictObject([
        ['chunks', false, integer(0)],
        ['characters', false, integer(0)],
      ]),
    ],
    [
      'decidedBy',
      true,
      strictObject([
        ['rule', false, oneOf(RULE_IDS)],
        ['evidence', true, text(MAX_EVIDENCE_LENGTH)],
      ]),
    ],
  ]);
  return readReport;
}

/** `ErrorReport.safeParse`'s verdict and output without zod; never throws (a hostile getter fails). */
export const ErrorReport = {
  safeParse(value: unknown): { success: true; data: ErrorReportType } | { success: false; data?: undefined } {
    let result: unknown;
    try {
      result = reportReader()(value);
    } catch {
      return { success: false };
    }
    return result === INVALID ? { success: false } : { success: true, data: result as ErrorReportType };
  },
};
export type ErrorReport = ErrorReportType;
