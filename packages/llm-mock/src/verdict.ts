import { checkOptionKeys } from '@faultline/render/toolkit';
import type { MockProvider, MockRequest } from './mock-provider.ts';
import { VERDICT_OPTION_KEYS } from './option-keys.ts';

/** What a client can do against the retry contract (docs/contributing/design.md's taxonomy). */
export type FindingCode =
  | 'retried-permanent-failure'
  | 'ignored-retry-after'
  | 'retried-faster-than-asked'
  | 'gave-up-on-transient-failure'
  | 'hung-past-stall'
  | 'resent-after-output';

export interface Finding {
  code: FindingCode;
  provider: string;
  /** The request whose answer the client mishandled (1-based `MockRequest.index`). */
  request: number;
  /** The later requests that make the finding (the retries), if any. */
  followedBy: number[];
  expected: string;
  actual: string;
}

export interface VerdictOptions {
  /**
   * A call that ends on a transient failure after fewer attempts than this gave up too early
   * (default 2: one retry). Failures asking to wait longer than `maxWaitSeconds` are exempt.
   */
  minAttempts?: number;
  /** A wait longer than this (seconds) excuses giving up (default 60). */
  maxWaitSeconds?: number;
  /** A stalled answer held open longer than this was not timed out by the client (default 10 000 ms). */
  stallLimitMs?: number;
  /** Slack for clocks when comparing a wait with a Retry-After (default 25 ms). */
  toleranceMs?: number;
  /** A retry sooner than this fraction of the asked wait ignored it (default 0.5); later but early is "faster than asked". */
  ignoredFraction?: number;
  /** Codes not to report. */
  allow?: readonly FindingCode[];
  /** The time to judge open stalls against (default: now). */
  now?: number;
}

/** One call: the requests with the same fingerprint (method, path, body), in order. */
export interface CallAttempts {
  provider: string;
  requests: MockRequest[];
}

export interface Verdict {
  ok: boolean;
  findings: Finding[];
  calls: CallAttempts[];
  /** The findings as a diff-style report ('' when ok). */
  message: string;
}

function endOf(request: MockRequest): number {
  return request.closedAt ?? request.answeredAt;
}

function describe(request: MockRequest): string {
  const answer = request.answer;
  const reason = answer.reason === undefined ? '' : `, ${answer.reason}`;
  return `#${request.index} ${request.provider} ${request.method} ${request.path} → ${answer.label}${reason}`;
}

/**
 * Reads the mock's record and says what the client did against the contract: retried a failure
 * no retry can fix, ignored a Retry-After or retried sooner than it asked, gave up on a transient
 * failure, hung on a stalled answer, or re-sent a request whose stream had already delivered
 * output. Attempts of one call are the requests with equal fingerprints (the SDKs re-send the
 * same body), so give two deliberate identical calls a distinct body, or reset the mock between.
 */
export function verdict(
  source: readonly MockRequest[] | MockProvider,
  options: VerdictOptions = {},
): Verdict {
  checkOptionKeys('verdict', options, VERDICT_OPTION_KEYS);
  const records = Array.isArray(source)
    ? (source as readonly MockRequest[])
    : (source as MockProvider).requests();
  const minAttempts = options.minAttempts ?? 2;
  const maxWaitSeconds = options.maxWaitSeconds ?? 60;
  const stallLimitMs = options.stallLimitMs ?? 10_000;
  const toleranceMs = options.toleranceMs ?? 25;
  const ignoredFraction = options.ignoredFraction ?? 0.5;
  const now = options.now ?? Date.now();
  const allowed = new Set(options.allow ?? []);

  const byFingerprint = new Map<string, MockRequest[]>();
  for (const record of records) {
    if (record.answer.kind === 'not-found') continue;
    const list = byFingerprint.get(record.fingerprint) ?? [];
    list.push(record);
    byFingerprint.set(record.fingerprint, list);
  }
  const calls = [...byFingerprint.values()].map((requests) => ({
    provider: requests[0]!.provider,
    requests,
  }));
  const findings: Finding[] = [];
  const add = (finding: Finding) => {
    if (!allowed.has(finding.code)) findings.push(finding);
  };

  for (const { provider, requests } of calls) {
    // One finding for a chain of retries of a permanent failure, at its first attempt.
    let permanentReported = false;
    requests.forEach((request, position) => {
      const answer = request.answer;
      const later = requests.slice(position + 1);
      const next = later[0];
      if (next !== undefined && answer.kind !== 'ok') {
        if (answer.deliveredChunks > 0) {
          add({
            code: 'resent-after-output',
            provider,
            request: request.index,
            followedBy: [next.index],
            expected: `no re-send after the stream delivered ${answer.deliveredChunks} chunk(s) (${describe(request)}); the user already saw output`,
            actual: `re-sent it as #${next.index}`,
          });
        } else if (
          !permanentReported &&
          !answer.retryable &&
          answer.reason !== 'interrupted' &&
          answer.reason !== 'timeout'
        ) {
          permanentReported = true;
          add({
            code: 'retried-permanent-failure',
            provider,
            request: request.index,
            followedBy: later.map((retry) => retry.index),
            expected: `no retry after ${describe(request)} (not retryable: no retry can fix it)`,
            actual: `retried ${later.length} time${later.length === 1 ? '' : 's'} (${later.map((retry) => `#${retry.index}`).join(', ')})`,
          });
        }
        const askedMs = (answer.retryAfterSeconds ?? 0) * 1000;
        if (answer.retryable && askedMs > 0) {
          const waited = next.time - endOf(request);
          if (waited + toleranceMs < askedMs) {
            const ignored = waited < askedMs * ignoredFraction;
            add({
              code: ignored ? 'ignored-retry-after' : 'retried-faster-than-asked',
              provider,
              request: request.index,
              followedBy: [next.index],
              expected: `wait ≥ ${askedMs} ms (Retry-After ${answer.retryAfterSeconds} s) after ${describe(request)}`,
              actual: `retried after ${Math.max(0, Math.round(waited))} ms (#${next.index})`,
            });
          }
        }
      }
      if (answer.stalls) {
        const heldMs = (request.closedAt ?? now) - request.answeredAt;
        if (heldMs > stallLimitMs) {
          add({
            code: 'hung-past-stall',
            provider,
            request: request.index,
            followedBy: [],
            expected: `give up on ${describe(request)} within ${stallLimitMs} ms (a timeout)`,
            actual:
              request.closedAt === undefined
                ? `still waiting after ${Math.round(heldMs)} ms`
                : `held it for ${Math.round(heldMs)} ms`,
          });
        }
      }
    });
    const last = requests.at(-1)!;
    const lastAnswer = last.answer;
    const asked = lastAnswer.retryAfterSeconds ?? 0;
    if (
      lastAnswer.kind !== 'ok' &&
      lastAnswer.retryable &&
      lastAnswer.deliveredChunks === 0 &&
      asked <= maxWaitSeconds &&
      requests.length < minAttempts
    ) {
      add({
        code: 'gave-up-on-transient-failure',
        provider,
        request: last.index,
        followedBy: [],
        expected: `at least ${minAttempts} attempts when ${describe(last)} (transient: a retry can fix it)`,
        actual: `gave up after ${requests.length} attempt${requests.length === 1 ? '' : 's'}`,
      });
    }
  }
  findings.sort((left, right) => left.request - right.request);
  return { ok: findings.length === 0, findings, calls, message: formatFindings(findings, records.length) };
}

function formatFindings(findings: readonly Finding[], requests: number): string {
  if (findings.length === 0) return '';
  const lines = [
    `llm-mock verdict: the client broke the retry contract (${findings.length} finding${findings.length === 1 ? '' : 's'} in ${requests} request${requests === 1 ? '' : 's'})`,
  ];
  for (const finding of findings) {
    lines.push(
      '',
      `  ${finding.code}`,
      `  - expected: ${finding.expected}`,
      `  + actual:   ${finding.actual}`,
    );
  }
  return lines.join('\n');
}

/** An Error whose message is the verdict's diff-style report; thrown by `assertClientBehaviour`. */
export class ClientContractError extends Error {
  readonly findings: Finding[];
  constructor(result: Verdict) {
    super(result.message);
    this.name = 'ClientContractError';
    this.findings = result.findings;
  }
}

/**
 * Throws a `ClientContractError` (a plain Error, so vitest, jest and node:test all print its
 * message) when the verdict finds anything; returns the verdict otherwise.
 */
export function assertClientBehaviour(
  source: readonly MockRequest[] | MockProvider,
  options: VerdictOptions = {},
): Verdict {
  checkOptionKeys('assertClientBehaviour', options, VERDICT_OPTION_KEYS);
  const result = verdict(source, options);
  if (!result.ok) throw new ClientContractError(result);
  return result;
}
