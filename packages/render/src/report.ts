import {
  type Classification,
  type DeliveredOutput,
  type FailureReason,
  RateLimitWindow,
} from '@faultline/classify';
import {
  classificationFor,
  constructorName,
  FAILURE_ORIGINS,
  MAX_EVIDENCE_LENGTH,
  messageOf,
  NETWORK_PHASES,
  parseClassification,
  safeGet,
  TAXONOMY,
} from '@faultline/classify/toolkit';
import * as v from 'valibot';
import { causeLinks, hasFaultlineMarker, TRUSTED_ERRORS } from './identity.ts';
import {
  ERROR_REPORT_SCHEMA_VERSION,
  ErrorReport,
  type ReportProviderMetadata,
  type WaitKind,
} from './report-schema.ts';
import { MAX_MESSAGE_LENGTH, scrubAndCut } from './secrets.ts';

export type { ReportProviderMetadata, WaitKind };
export { ERROR_REPORT_SCHEMA_VERSION, ErrorReport };

/** What a retry loop did before this error left it: attempts made and the wait before each retry. */
export interface AttemptRecord {
  /** Attempts made in all, the first included (≥ 1). */
  readonly made: number;
  /** The wait before each retry, in ms (one entry per retry: `made - 1` entries). */
  readonly waitsMs: readonly number[];
  /** True when a retryable failure was given up on: the attempts or the deadline ran out. */
  readonly exhausted: boolean;
}

export function readAttemptRecord(value: unknown): AttemptRecord | undefined {
  const made = safeGet(value, 'made');
  const waits = safeGet(value, 'waitsMs');
  if (typeof made !== 'number' || !Number.isSafeInteger(made) || made < 1 || !Array.isArray(waits))
    return undefined;
  const waitsMs: number[] = [];
  try {
    for (const wait of waits.slice(0, 100)) {
      if (typeof wait !== 'number' || !Number.isFinite(wait) || wait < 0) return undefined;
      waitsMs.push(Math.round(wait));
    }
  } catch {
    return undefined;
  }
  return Object.freeze({
    made,
    waitsMs: Object.freeze(waitsMs),
    exhausted: safeGet(value, 'exhausted') === true,
  });
}

/** The meaning of a classification's wait, from its category alone. */
export function waitKindFor(classification: Pick<Classification, 'category' | 'retryable'>): WaitKind {
  if (
    classification.retryable ||
    classification.category === 'transient' ||
    classification.category === 'ambiguous'
  )
    return 'retry_after';
  return classification.category === 'capacity' ? 'quota_reset' : 'provider_wait';
}

/** A plain JSON copy of a report (no prototypes, no undefined members); the public form is format.ts's `toDict`. */
export function plainReport(report: ErrorReport): Record<string, unknown> {
  return JSON.parse(JSON.stringify(report)) as Record<string, unknown>;
}

function text(value: unknown, maxLength = 200): string | undefined {
  if (typeof value !== 'string' || value.length === 0) return undefined;
  const scrubbed = scrubAndCut(value, maxLength);
  return scrubbed.length > 0 ? scrubbed : undefined;
}

function finiteNonNegative(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value + 0 : undefined;
}

/** The ISO time `waitSeconds` after `failedAt` (epoch ms), or undefined when either cannot make a date. */
export function retryableAt(failedAt: unknown, waitSeconds: number): string | undefined {
  if (typeof failedAt !== 'number' || !Number.isFinite(failedAt)) return undefined;
  const time = new Date(Math.round(failedAt + waitSeconds * 1000));
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

function readClassification(value: unknown): Classification | undefined {
  try {
    // With `Classification`'s verdict and output (classify's parseClassification).
    return parseClassification(safeGet(value, 'classification'));
  } catch {
    return undefined;
  }
}

export function readDelivered(value: unknown): DeliveredOutput | undefined {
  const chunks = safeGet(value, 'chunks');
  const characters = safeGet(value, 'characters');
  if (typeof chunks !== 'number' || typeof characters !== 'number') return undefined;
  if (!Number.isSafeInteger(chunks) || !Number.isSafeInteger(characters) || chunks < 0 || characters < 0)
    return undefined;
  return { chunks, characters };
}

const ORIGINS: ReadonlySet<string> = new Set(FAILURE_ORIGINS);
const PHASES: ReadonlySet<string> = new Set(NETWORK_PHASES);

function readProviderMetadata(metadata: unknown): ReportProviderMetadata {
  const origin = safeGet(metadata, 'origin');
  const result: ReportProviderMetadata = {
    origin: ORIGINS.has(origin as string) ? (origin as ReportProviderMetadata['origin']) : 'unknown',
  };
  const status = safeGet(metadata, 'statusCode');
  if (typeof status === 'number' && Number.isSafeInteger(status)) result.statusCode = status;
  for (const key of ['requestId', 'providerCode', 'providerType', 'sdkErrorType', 'networkCode'] as const) {
    const value = text(safeGet(metadata, key));
    if (value !== undefined) result[key] = value;
  }
  const phase = safeGet(metadata, 'networkPhase');
  if (PHASES.has(phase as string)) result.networkPhase = phase as ReportProviderMetadata['networkPhase'];
  const attempts = safeGet(metadata, 'sdkAttempts');
  if (typeof attempts === 'number' && Number.isSafeInteger(attempts) && attempts >= 0)
    result.sdkAttempts = attempts;
  const rateLimit = readRateLimit(safeGet(metadata, 'rateLimit'));
  if (rateLimit !== undefined) result.rateLimit = rateLimit;
  return result;
}

type ReportRateLimit = NonNullable<ReportProviderMetadata['rateLimit']>;

/** A budget's windows as the report's schema takes them: known fields of valid values, nothing else. */
function readRateLimit(value: unknown): ReportRateLimit | undefined {
  const budget: { requests?: ReportRateLimit['requests']; tokens?: ReportRateLimit['tokens'] } = {};
  for (const name of ['requests', 'tokens'] as const) {
    const source = safeGet(value, name);
    // Field by field (each getter read once, safely), each checked by classify's schema of a window:
    // a bad value drops that field, not what the provider stated beside it.
    const window: Record<string, number> = {};
    for (const field of ['limit', 'remaining', 'resetSeconds'] as const) {
      const number = safeGet(source, field);
      if (number !== undefined && v.is(RateLimitWindow, { [field]: number }))
        window[field] = number as number;
    }
    if (Object.keys(window).length > 0) budget[name] = window;
  }
  return budget.requests === undefined && budget.tokens === undefined ? undefined : budget;
}

/**
 * Whether a stream's failure came after output reached its consumer: text, reasoning or a tool
 * call's arguments (the characters a guard counts). Chunks alone do not say so: a stream opens with
 * parts that carry none (an AI SDK `stream-start`, a role-only delta, metadata events), and a failure
 * there left nothing for anyone to see or act on, so a fallback chain may still move on.
 */
export function outputDelivered(delivered: DeliveredOutput | undefined): boolean {
  return delivered !== undefined && delivered.characters > 0;
}

/**
 * The next step a report states. Once a stream delivered output, a fallback chain's defaults end
 * with the failure (moving on is the caller's choice, `fallbackAfterOutput`), as the recovery hint
 * says: a row whose own step is `fallback` (quota, billing, model_not_found, permission) then
 * needs a person to act (add credit, change the model, fix the key's access): `fix_configuration`.
 */
export function nextStepFor<Step>(
  reason: FailureReason,
  step: Step,
  delivered: DeliveredOutput | undefined,
): Step | 'fix_configuration' {
  if (step !== 'fallback' || !outputDelivered(delivered)) return step;
  return TAXONOMY[reason].nextStep === 'fallback' ? 'fix_configuration' : step;
}

/** The report used when nothing else can be built (never expected; keeps `toErrorReport` total). */
export function minimalReport(message = 'The failure could not be read.'): ErrorReport {
  const classification = classificationFor('unknown');
  return {
    schemaVersion: ERROR_REPORT_SCHEMA_VERSION,
    errorType: 'FaultlineError',
    message: scrubAndCut(message),
    category: classification.category,
    reason: classification.reason,
    retryable: false,
    userAction: { kind: classification.userAction.kind, detail: TAXONOMY.unknown.advice },
    nextStep: classification.nextStep,
    recovery: classification.recovery,
    domain: classification.domain,
    httpStatus: classification.httpStatus,
    provider: 'unknown',
    model: null,
    retryOnlyIfIdempotent: false,
    callerAborted: false,
    providerMetadata: { origin: 'unknown' },
    decidedBy: { rule: classification.decidedBy.rule },
  };
}

/**
 * Builds the report of `head` from the nearest marked FaultlineError on its cause chain (`head`
 * itself first): `head` keeps its own errorType and message, the classification comes from that
 * error, and model/provider/operation from the first link that names them. Returns `undefined`
 * when no link of the chain is a FaultlineError. Never throws.
 */
export function reportFromChain(head: unknown): ErrorReport | undefined {
  try {
    const links = causeLinks(head);
    let source: unknown;
    let classification: Classification | undefined;
    for (const link of links) {
      if (!hasFaultlineMarker(link)) continue;
      // An error this copy built holds a frozen, validated classification: no need to re-parse it.
      classification = TRUSTED_ERRORS.has(link as object)
        ? (link as { classification: Classification }).classification
        : readClassification(link);
      if (classification !== undefined) {
        source = link;
        break;
      }
    }
    if (classification === undefined) return undefined;
    const metadata = safeGet(source, 'metadata');
    const headMarked = hasFaultlineMarker(head);
    const errorType =
      (headMarked ? text(safeGet(head, 'errorType')) : text(constructorName(head))) ?? 'FaultlineError';
    const message =
      text(messageOf(head, 16 * 1024), MAX_MESSAGE_LENGTH) ??
      text(messageOf(source, 16 * 1024), MAX_MESSAGE_LENGTH) ??
      TAXONOMY[classification.reason].advice;

    let provider: string | undefined;
    let model: string | undefined;
    let operation: string | undefined;
    let delivered: DeliveredOutput | undefined;
    let attempts: AttemptRecord | undefined;
    for (const link of links) {
      if (!hasFaultlineMarker(link)) continue;
      attempts ??= readAttemptRecord(safeGet(link, 'attempts'));
      provider ??= text(safeGet(link, 'provider'));
      model ??= text(safeGet(link, 'model'));
      operation ??= text(safeGet(link, 'operation'));
      delivered ??= readDelivered(safeGet(safeGet(link, 'metadata'), 'delivered'));
    }
    provider ??= text(safeGet(metadata, 'provider')) ?? 'unknown';

    const detail = text(classification.userAction.detail, MAX_MESSAGE_LENGTH);
    const evidence = text(classification.decidedBy.evidence, MAX_EVIDENCE_LENGTH);
    const report: ErrorReport = {
      schemaVersion: ERROR_REPORT_SCHEMA_VERSION,
      errorType,
      message,
      category: classification.category,
      reason: classification.reason,
      retryable: classification.retryable,
      userAction:
        detail === undefined
          ? { kind: classification.userAction.kind }
          : { kind: classification.userAction.kind, detail },
      nextStep: nextStepFor(classification.reason, classification.nextStep, delivered),
      recovery: { ...classification.recovery },
      domain: classification.domain,
      httpStatus: classification.httpStatus,
      provider,
      model: model ?? null,
      retryOnlyIfIdempotent: classification.category === 'ambiguous',
      callerAborted: classification.callerAborted,
      providerMetadata: readProviderMetadata(metadata),
    };
    if (operation !== undefined) report.operation = operation;
    const wait = finiteNonNegative(classification.retryAfterSeconds);
    if (wait !== undefined) {
      report.retryAfterSeconds = wait;
      report.waitKind = waitKindFor(classification);
      const at = retryableAt(safeGet(source, 'failedAt'), wait);
      if (at !== undefined) report.retryableAt = at;
    }
    if (attempts !== undefined) {
      report.attempts = { made: attempts.made, waitsMs: [...attempts.waitsMs] };
      report.retriesExhausted = attempts.exhausted;
    }
    if (delivered !== undefined) report.delivered = delivered;
    // Once output was delivered a fallback chain's defaults end with the failure (moving on is the
    // caller's choice, `fallbackAfterOutput`): the hint says what the chain would do.
    if (outputDelivered(delivered)) report.recovery.fallback = false;
    report.decidedBy =
      evidence === undefined
        ? { rule: classification.decidedBy.rule }
        : { rule: classification.decidedBy.rule, evidence };
    // Built from a classification this copy validated, scrubbed text and checked enums, the report
    // is valid by construction; anything read from a foreign copy is checked against the schema.
    if (TRUSTED_ERRORS.has(source as object)) return report;
    const checked = v.safeParse(ErrorReport, report);
    return checked.success ? checked.output : minimalReport(message);
  } catch {
    return minimalReport();
  }
}
