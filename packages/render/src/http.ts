import type { FailureReason } from '@faultline/classify';
import { asReport, type ReportSource } from './classify-error.ts';
import { type Disclosure, disclosedMessage, disclosureOption } from './disclosure.ts';
import { checkOptionKeys } from './invalid-option.ts';
import { PROBLEM_DETAILS_OPTION_KEYS } from './option-keys.ts';
import type { ErrorReport } from './report.ts';
import { scrubAndCut } from './secrets.ts';

/** Short RFC 9457 titles, one per reason. Render-only wording (classify keeps the advice). */
const TITLES: Readonly<Record<FailureReason, string>> = {
  rate_limit: 'Rate limited by the provider',
  overloaded: 'Provider overloaded',
  server_error: 'Provider error',
  timeout: 'Provider timed out',
  connection: 'Could not connect to the provider',
  interrupted: 'Provider connection interrupted',
  auth: 'Provider credentials rejected',
  permission: 'Not permitted by the provider',
  model_not_found: 'Model not found',
  not_found: 'Provider endpoint not found',
  endpoint: 'Provider endpoint unreachable',
  quota: 'Provider quota exhausted',
  billing: 'Provider billing problem',
  context_overflow: 'Input too long for the model',
  content_policy: 'Blocked by content policy',
  invalid_request: 'Invalid request',
  unsupported_media: 'Unsupported media',
  local_bug: 'Internal error',
  cancelled: 'Request cancelled',
  unknown: 'Unclassified error',
};

/** The prefix of every problem `type`: a stable URN per reason, e.g. `urn:faultline:problem:rate_limit`. */
export const PROBLEM_TYPE_PREFIX = 'urn:faultline:problem:';

/** The HTTP status a server answers with: the taxonomy's, so a 429 rate limit stays a 429. */
export function httpStatusFor(source: ReportSource): number {
  const status = asReport(source).httpStatus;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599
    ? status
    : 500;
}

/** An RFC 9457 problem details object with faultline's extension members. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  category: ErrorReport['category'];
  reason: ErrorReport['reason'];
  retryable: boolean;
  nextStep: ErrorReport['nextStep'];
  retryOnlyIfIdempotent: boolean;
  requestId?: string;
  retryAfterSeconds?: number;
  waitKind?: ErrorReport['waitKind'];
  attempts?: number;
  retriesExhausted?: boolean;
}

export interface ProblemDetailsOptions {
  /** A URI reference naming this occurrence (e.g. the request path or a trace id). */
  readonly instance?: string | undefined;
  /** Overrides the `type` prefix, e.g. `https://docs.example.com/errors/`. */
  readonly typePrefix?: string | undefined;
  /**
   * How much provider text `detail` carries. Default `safe`: a problem+json body goes to the app's
   * own clients, so it says what happened in faultline's words, never the provider's (which can
   * name the organization, project or account behind the call). The request id is given only at `full`.
   */
  readonly disclosure?: Disclosure | undefined;
}

/** The RFC 9457 `application/problem+json` body for a report; `detail` at the `safe` level by default. */
export function problemDetails(source: ReportSource, options: ProblemDetailsOptions = {}): ProblemDetails {
  checkOptionKeys('problemDetails', options, PROBLEM_DETAILS_OPTION_KEYS);
  const report = asReport(source);
  const level = disclosureOption(options, 'safe');
  let prefix = PROBLEM_TYPE_PREFIX;
  let instance: unknown;
  try {
    if (typeof options?.typePrefix === 'string') prefix = options.typePrefix;
    instance = options?.instance;
  } catch {
    // Options whose getters throw: the defaults.
  }
  const problem: ProblemDetails = {
    type: `${prefix}${report.reason}`,
    title: TITLES[report.reason] ?? TITLES.unknown,
    status: httpStatusFor(report),
    detail: disclosedMessage(report, level),
    category: report.category,
    reason: report.reason,
    retryable: report.retryable,
    nextStep: report.nextStep,
    retryOnlyIfIdempotent: report.retryOnlyIfIdempotent,
  };
  if (typeof instance === 'string') problem.instance = scrubAndCut(instance, 500);
  if (level === 'full' && report.providerMetadata.requestId !== undefined)
    problem.requestId = report.providerMetadata.requestId;
  if (report.retryAfterSeconds !== undefined) {
    problem.retryAfterSeconds = report.retryAfterSeconds;
    if (report.waitKind !== undefined) problem.waitKind = report.waitKind;
  }
  if (report.attempts !== undefined) {
    problem.attempts = report.attempts.made;
    problem.retriesExhausted = report.retriesExhausted === true;
  }
  return problem;
}

export interface HttpErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ProblemDetails;
}

/**
 * Status, headers and problem+json body for a report. A `Retry-After` header (whole seconds,
 * rounded up) is set on a 429 or 503 whose wait is known.
 */
export function httpResponseFor(
  source: ReportSource,
  options: ProblemDetailsOptions = {},
): HttpErrorResponse {
  checkOptionKeys('httpResponseFor', options, PROBLEM_DETAILS_OPTION_KEYS);
  const report = asReport(source);
  const status = httpStatusFor(report);
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  // Retry-After tells a client when to try again: only for a wait that is one (not a quota reset).
  if (
    (status === 429 || status === 503) &&
    report.retryAfterSeconds !== undefined &&
    report.waitKind === 'retry_after'
  ) {
    headers['retry-after'] = String(Math.ceil(report.retryAfterSeconds));
  }
  return { status, headers, body: problemDetails(report, options) };
}
