import { classificationFor, type FailureReason, TAXONOMY } from '@faultline/classify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { safeMessageFor } from './disclosure.ts';
import {
  type ErrorReport,
  exitCodeFor,
  FaultlineError,
  formatForLlm,
  formatMarkdown,
  formatPanel,
  fromDict,
  httpResponseFor,
  httpStatusFor,
  problemDetails,
  toDict,
  toErrorReport,
  toolResultFor,
  toWireError,
} from './index.ts';

function reportFor(reason: FailureReason, retryAfterSeconds?: number, requestId = 'req_abc'): ErrorReport {
  return new FaultlineError(`failure: ${reason}`, {
    classification: classificationFor(reason, { retryAfterSeconds }),
    metadata: { provider: 'openai', origin: 'http', statusCode: 400, message: 'm', requestId },
    model: 'gpt-4o',
  }).toErrorReport();
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point.
const ANSI = /\u001b\[/;

describe('terminal panel', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });
  it('shows the reason, message, advice, wait and request id', () => {
    const panel = formatPanel(reportFor('rate_limit', 20), { color: false });
    expect(panel).toContain('rate_limit');
    expect(panel).toContain('failure: rate_limit');
    // A long value wraps at spaces under its label: read back without the wrapping, it is whole.
    expect(panel.replace(/\n│ +/g, ' ')).toContain(TAXONOMY.rate_limit.advice);
    expect(panel).toContain('req_abc');
    expect(panel).toContain('20 s');
    expect(panel).not.toMatch(ANSI);
  });
  it('fits the width it is given, breaking at spaces, and keeps every word in order', () => {
    const words = Array.from({ length: 60 }, (_, index) => `word${index}`);
    const report = { ...reportFor('rate_limit', 20), message: words.join(' ') };
    for (const width of [60, 80, 120]) {
      const panel = formatPanel(report, { color: false, width });
      const lines = panel.split('\n');
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(width);
      const message = lines
        .slice(1)
        .filter((line) => /^│ word/.test(line))
        .map((line) => line.slice(2))
        .join(' ');
      expect(message).toBe(words.join(' '));
    }
    const long = { ...report, message: `see ${'x'.repeat(200)}` };
    for (const line of formatPanel(long, { color: false }).split('\n'))
      expect(line.length).toBeLessThanOrEqual(80);
  });
  it('names the deciding rule only when asked to explain', () => {
    const report = {
      ...reportFor('rate_limit', 20),
      decidedBy: { rule: 'short_window' as const, evidence: 'per min' },
    };
    expect(formatPanel(report, { color: false })).not.toContain('short_window');
    expect(formatPanel(report, { color: false, explain: true })).toMatch(/│ rule +short_window: per min/);
  });
  it('colour only when asked, never with NO_COLOR', () => {
    vi.stubEnv('NO_COLOR', '');
    expect(formatPanel(reportFor('auth'), { color: true })).toMatch(ANSI);
    vi.stubEnv('NO_COLOR', '1');
    expect(formatPanel(reportFor('auth'), { color: true })).not.toMatch(ANSI);
  });
  it('strips escape sequences a provider message may carry', () => {
    const report = { ...reportFor('server_error'), message: 'evil \u001b[2J\u001b]0;title\u0007 text' };
    for (const output of [
      formatPanel(report, { color: false }),
      formatMarkdown(report),
      formatForLlm(report),
    ]) {
      expect(output).not.toMatch(ANSI);
      expect(output).not.toContain('\u0007');
      expect(output).toContain('evil');
    }
  });
  it('by default follows the TTY', () => {
    vi.stubEnv('NO_COLOR', '');
    const original = process.stdout.isTTY;
    try {
      process.stdout.isTTY = false;
      expect(formatPanel(reportFor('auth'))).not.toMatch(ANSI);
      process.stdout.isTTY = true;
      expect(formatPanel(reportFor('auth'))).toMatch(ANSI);
    } finally {
      process.stdout.isTTY = original;
    }
  });
});

describe('JSON and markdown', () => {
  it('toDict reads back to the report through fromDict, also as JSON text', () => {
    const report = reportFor('quota', 90_000);
    expect(fromDict(toDict(report))).toStrictEqual(report);
    expect(fromDict(JSON.parse(JSON.stringify(toDict(report))))).toStrictEqual(report);
  });
  it('toDict of an error is the dict of its report; toErrorReport of a report is that report', () => {
    const error = new FaultlineError('Rate limited: org-canary1234 used its allowance', {
      classification: classificationFor('rate_limit'),
    });
    const report = error.toErrorReport();
    expect(toDict(error)).toStrictEqual(toDict(report));
    expect(toErrorReport(toDict(report))).toStrictEqual(report);
    expect(toErrorReport({ ...toDict(report), extra: 1 }).reason).toBe('unknown');
  });
  it('toDict takes a disclosure level: safe drops the provider text, full keeps it', () => {
    const report = { ...reportFor('rate_limit'), message: 'Rate limited: org-canary1234 used its allowance' };
    expect(toDict(report).message).toBe(report.message);
    expect(toDict(report, { disclosure: 'safe' }).message).toBe(safeMessageFor('rate_limit'));
    expect(JSON.stringify(toDict(report, { disclosure: 'scrubbed' }))).not.toContain('canary1234');
  });
  it('formatMarkdown has the reason, next step and advice, and escapes pipes', () => {
    const report = { ...reportFor('context_overflow'), message: 'a | b' };
    const markdown = formatMarkdown(report);
    expect(markdown).toContain('`context_overflow`');
    expect(markdown).toContain('`compress`');
    expect(markdown).toContain('a \\| b');
  });
});

describe('formatForLlm', () => {
  it('gives the next step, why and the wait', () => {
    const text = formatForLlm(reportFor('rate_limit', 12.2));
    expect(text).toContain('nextStep: retry');
    expect(text).toContain(`why: ${TAXONOMY.rate_limit.advice}`);
    expect(text).toContain('wait: 13 seconds');
  });
  it('every reason gives its row next step', () => {
    for (const reason of Object.keys(TAXONOMY) as FailureReason[]) {
      expect(formatForLlm(reportFor(reason))).toContain(`nextStep: ${TAXONOMY[reason].nextStep}`);
    }
  });
});

describe('wire form and tool result', () => {
  it('toWireError is { error, category, detail, ...extras } and extras never overwrite the reserved keys', () => {
    const report = reportFor('overloaded');
    expect(toWireError(report)).toStrictEqual({
      error: 'overloaded',
      category: 'transient',
      detail: safeMessageFor('overloaded'),
    });
    const wire = toWireError(report, { error: 'x', category: 'y', detail: 'z', traceId: 't1' });
    expect(wire).toStrictEqual({
      error: 'overloaded',
      category: 'transient',
      detail: safeMessageFor('overloaded'),
      traceId: 't1',
    });
    const hostile = Object.defineProperty({ ok: 1 }, 'bad', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    expect(toWireError(report, hostile)).toStrictEqual({
      error: 'overloaded',
      category: 'transient',
      detail: safeMessageFor('overloaded'),
      ok: 1,
    });
  });
  it('extras are kept as JSON only (no bigint, function, symbol, undefined, cycles)', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const wire = toWireError(reportFor('overloaded'), {
      big: 1n,
      fn: () => 1,
      symbol: Symbol('s'),
      missing: undefined,
      infinite: Number.POSITIVE_INFINITY,
      cyclic,
      nested: { ok: [1, 'two'] },
    });
    expect(wire).toStrictEqual({
      error: 'overloaded',
      category: 'transient',
      detail: safeMessageFor('overloaded'),
      nested: { ok: [1, 'two'] },
    });
    expect(() => JSON.stringify(wire)).not.toThrow();
  });
  it('toolResultFor is the error envelope with the wire form as content', () => {
    const report = reportFor('rate_limit', 5);
    const result = toolResultFor(report, { toolUseId: 'toolu_1' });
    expect(result.type).toBe('tool_result');
    expect(result.tool_use_id).toBe('toolu_1');
    expect(result.is_error).toBe(true);
    const content = JSON.parse(result.content);
    expect(content).toMatchObject({
      error: 'rate_limit',
      category: 'transient',
      detail: 'failure: rate_limit',
      nextStep: 'retry',
      retryAfterSeconds: 5,
    });
    expect('tool_use_id' in toolResultFor(report)).toBe(false);
  });
  it('exitCodeFor: configuration 2, everything else 1', () => {
    for (const reason of Object.keys(TAXONOMY) as FailureReason[]) {
      expect(exitCodeFor(reportFor(reason)), reason).toBe(
        TAXONOMY[reason].category === 'configuration' ? 2 : 1,
      );
    }
  });
});

describe('HTTP', () => {
  // docs/contributing/design.md's HTTP column.
  const expected: Record<FailureReason, number> = {
    rate_limit: 429,
    overloaded: 503,
    server_error: 503,
    timeout: 503,
    connection: 503,
    interrupted: 502,
    cancelled: 499,
    auth: 500,
    permission: 500,
    model_not_found: 500,
    not_found: 500,
    endpoint: 500,
    quota: 500,
    billing: 500,
    context_overflow: 422,
    content_policy: 422,
    invalid_request: 422,
    unsupported_media: 422,
    local_bug: 500,
    unknown: 500,
  };
  it('status per the taxonomy', () => {
    for (const [reason, status] of Object.entries(expected) as Array<[FailureReason, number]>) {
      expect(httpStatusFor(reportFor(reason)), reason).toBe(status);
    }
  });
  it('a 429 passes through with Retry-After', () => {
    const response = httpResponseFor(reportFor('rate_limit', 2.5));
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('3');
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(httpResponseFor(reportFor('rate_limit')).headers['retry-after']).toBeUndefined();
    expect(httpResponseFor(reportFor('auth')).headers['retry-after']).toBeUndefined();
  });
  it('problem+json (RFC 9457) with the extension members', () => {
    const problem = problemDetails(reportFor('context_overflow'), { instance: '/v1/chat' });
    expect(problem).toStrictEqual({
      type: 'urn:faultline:problem:context_overflow',
      title: expect.any(String),
      status: 422,
      // safe by default: faultline's words for the reason, never the provider's, no request id.
      detail: safeMessageFor('context_overflow'),
      instance: '/v1/chat',
      category: 'content',
      reason: 'context_overflow',
      retryable: false,
      nextStep: 'compress',
      retryOnlyIfIdempotent: false,
    });
    const full = problemDetails(reportFor('context_overflow'), { disclosure: 'full' });
    expect(full.detail).toBe('failure: context_overflow');
    expect(full.requestId).toBe('req_abc');
    expect(
      problemDetails(reportFor('unknown', undefined, ''), { disclosure: 'full' }).requestId,
    ).toBeUndefined();
  });
});
