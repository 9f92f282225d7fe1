import { classificationFor, type ProviderErrorMetadata } from '@faultline/classify';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  classifyError,
  ERROR_REPORT_SCHEMA_VERSION,
  ErrorReport,
  FaultlineContextError,
  FaultlineError,
  fromDict,
  guardStream,
  outputDelivered,
  toDict,
  toErrorReport,
} from './index.ts';
import { safeFromDict } from './toolkit.ts';

const metadata: ProviderErrorMetadata = {
  provider: 'anthropic',
  origin: 'http',
  statusCode: 529,
  message: 'Overloaded',
  requestId: 'req_011',
  providerType: 'overloaded_error',
  sdkErrorType: 'InternalServerError',
  sdkAttempts: 3,
};

function sample(): FaultlineError {
  return classifyError(new Error('sdk'), {
    family: 'completion',
    model: 'claude-x',
    operation: 'messages.create',
    extractors: [{ provider: 'anthropic', extract: () => metadata }],
  });
}

describe('ErrorReport', () => {
  it('carries every required field', () => {
    const report = sample().toErrorReport();
    expect(report).toMatchObject({
      schemaVersion: ERROR_REPORT_SCHEMA_VERSION,
      errorType: 'CompletionError',
      message: 'Overloaded',
      category: 'transient',
      reason: 'overloaded',
      retryable: true,
      userAction: { kind: 'wait_and_retry' },
      nextStep: 'retry',
      recovery: { rotateCredential: false, fallback: true, compress: false },
      domain: 'runtime',
      httpStatus: 503,
      provider: 'anthropic',
      model: 'claude-x',
      operation: 'messages.create',
      callerAborted: false,
      providerMetadata: {
        origin: 'http',
        statusCode: 529,
        requestId: 'req_011',
        providerType: 'overloaded_error',
        sdkErrorType: 'InternalServerError',
        sdkAttempts: 3,
      },
    });
    expect(v.is(ErrorReport, report)).toBe(true);
  });
  it("carries the failure's rate-limit budget, its known fields of valid values only", () => {
    const budgetOf = (rateLimit: unknown) =>
      classifyError(new Error('sdk'), {
        extractors: [
          {
            provider: 'openai',
            extract: () => ({
              provider: 'openai',
              origin: 'http',
              statusCode: 429,
              message: 'm',
              rateLimit: rateLimit as never,
            }),
          },
        ],
      }).toErrorReport().providerMetadata.rateLimit;
    const budget = {
      requests: { limit: 30, remaining: 0, resetSeconds: 0.45 },
      tokens: { limit: 6000, remaining: 5800, resetSeconds: 179.5 },
    };
    const report = classifyError(new Error('sdk'), {
      extractors: [
        {
          provider: 'openai',
          extract: () => ({
            provider: 'openai',
            origin: 'http',
            statusCode: 429,
            message: 'm',
            rateLimit: budget,
          }),
        },
      ],
    }).toErrorReport();
    expect(report.providerMetadata.rateLimit).toEqual(budget);
    expect(fromDict(toDict(report))).toEqual(report);
    // An identifier riding along, a bad count, a getter that throws: dropped, never the report.
    expect(
      budgetOf({
        requests: { limit: 30, remaining: -1, resetSeconds: 1, organization: 'org-canary' },
        tokens: new Proxy(
          {},
          {
            get: () => {
              throw new Error('getter');
            },
          },
        ),
        account: 'acct-canary',
      }),
    ).toEqual({ requests: { limit: 30, resetSeconds: 1 } });
    expect(budgetOf({ requests: { remaining: Number.NaN } })).toBeUndefined();
    expect(budgetOf('30 left')).toBeUndefined();
    expect(
      safeFromDict({
        ...report,
        providerMetadata: { ...report.providerMetadata, rateLimit: { requests: { limit: 1, key: 'k' } } },
      }).success,
    ).toBe(false);
  });
  it('is strict: an unknown key is rejected, at the top and inside', () => {
    const report = sample().toErrorReport();
    expect(safeFromDict({ ...report, extra: 1 }).success).toBe(false);
    expect(
      safeFromDict({ ...report, providerMetadata: { ...report.providerMetadata, rawBody: 'x' } }).success,
    ).toBe(false);
    expect(safeFromDict({ ...report, userAction: { kind: 'unknown', secret: 'x' } }).success).toBe(false);
    expect(() => fromDict({ ...report, schemaVersion: ERROR_REPORT_SCHEMA_VERSION + 1 })).toThrow();
    expect(() => fromDict({ ...report, schemaVersion: 1 })).toThrow();
    expect(() => fromDict(null)).toThrow();
  });
  it("fromDict's error is a TypeError naming each wrong field, without quoting a value", () => {
    const report = sample().toErrorReport();
    const { httpStatus: _status, ...withoutStatus } = report;
    const bad = {
      ...withoutStatus,
      extra: 1,
      providerMetadata: { ...report.providerMetadata, requestId: 42, sdkErrorType: 'x'.repeat(600) },
      userAction: { kind: 'sk-canary-in-the-kind' },
    };
    expect(() => fromDict(bad)).toThrow(TypeError);
    const parsed = safeFromDict(bad);
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(parsed.error).toBeInstanceOf(TypeError);
    expect(parsed.error.issues.map((issue) => issue.path.join('.')).sort()).toEqual([
      'extra',
      'httpStatus',
      'providerMetadata.requestId',
      'providerMetadata.sdkErrorType',
      'userAction.kind',
    ]);
    expect(parsed.error.message).toContain('extra: unknown key');
    expect(parsed.error.message).toContain('httpStatus: missing');
    expect(parsed.error.message).toContain('providerMetadata.requestId: expected string, received 42');
    expect(parsed.error.message).toContain('providerMetadata.sdkErrorType: expected <=512, received 600');
    expect(parsed.error.message).not.toContain('sk-canary');
  });
  it('round-trips through toDict/fromDict and JSON exactly', () => {
    const report = sample().toErrorReport();
    expect(fromDict(toDict(report))).toStrictEqual(report);
    expect(fromDict(JSON.parse(JSON.stringify(toDict(report))))).toStrictEqual(report);
  });
  it('output delivered is content that reached the consumer: chunks without characters keep the fallback', async () => {
    const extractors = [
      {
        provider: 'openai',
        extract: (): ProviderErrorMetadata => ({
          provider: 'openai',
          origin: 'http',
          statusCode: 403,
          message: 'Forbidden',
        }),
      },
    ];
    // A stream that opens with parts carrying no output (a start event, a role-only delta), then
    // either fails there or after a text delta.
    async function* parts(text: string) {
      yield { type: 'start' };
      yield { type: 'role' };
      if (text.length > 0) yield { type: 'text', text };
      throw new Error('sdk');
    }
    const failureAfter = async (text: string) => {
      try {
        for await (const _part of guardStream(parts(text), {
          extractors,
          readChunk: (part) => ({ characters: part.text?.length ?? 0, terminal: false }),
        }));
      } catch (thrown) {
        return (thrown as FaultlineError).toErrorReport();
      }
      throw new Error('expected the stream to fail');
    };
    const before = await failureAfter('');
    expect(before).toMatchObject({
      reason: 'permission',
      delivered: { chunks: 2, characters: 0 },
      nextStep: 'fallback',
      recovery: { fallback: true },
    });
    expect(outputDelivered(before.delivered)).toBe(false);
    const after = await failureAfter('Hi');
    expect(after).toMatchObject({
      reason: 'permission',
      delivered: { chunks: 3, characters: 2 },
      nextStep: 'fix_configuration',
      recovery: { fallback: false },
    });
    expect(outputDelivered(after.delivered)).toBe(true);
    expect(outputDelivered(undefined)).toBe(false);
  });
  it('a wrapper keeps its errorType and message and inherits the classification', () => {
    const wrapper = new Error('job 42 failed', { cause: sample() });
    const report = toErrorReport(wrapper);
    expect(report.errorType).toBe('Error');
    expect(report.message).toBe('job 42 failed');
    expect(report.reason).toBe('overloaded');
    expect(report.model).toBe('claude-x');
  });
  it('a cyclic cause chain terminates', () => {
    const first = new Error('first');
    const second = new Error('second', { cause: first });
    (first as { cause?: unknown }).cause = second;
    expect(toErrorReport(first).reason).toBe('unknown');
    const inner = sample();
    const loop = new Error('loop', { cause: inner });
    Object.defineProperty(inner, 'cause', { value: loop });
    expect(toErrorReport(loop).reason).toBe('overloaded');
    expect(new FaultlineContextError('ctx', { cause: loop }).toErrorReport().reason).toBe('overloaded');
  });
  it('a 10,000-deep chain is bounded (fast, no stack overflow)', () => {
    let chain: unknown = sample();
    for (let index = 0; index < 10_000; index++) chain = new Error(`level ${index}`, { cause: chain });
    const started = performance.now();
    const report = toErrorReport(chain);
    expect(report.message).toBe('level 9999');
    // The FaultlineError is far below the bound: the report says so rather than walk 10,000 links.
    expect(report.reason).toBe('unknown');
    const wrapped = new FaultlineContextError('ctx', { cause: chain });
    expect(wrapped.toErrorReport().errorType).toBe('FaultlineContextError');
    expect(performance.now() - started).toBeLessThan(1000);
  });
  it('a FaultlineError within the bound is found', () => {
    let chain: unknown = sample();
    for (let index = 0; index < 50; index++) chain = new Error(`level ${index}`, { cause: chain });
    expect(toErrorReport(chain).reason).toBe('overloaded');
  });
  it('retryAfterSeconds and delivered are carried', () => {
    const error = new FaultlineError('m', {
      classification: classificationFor('rate_limit', { retryAfterSeconds: 20 }),
      metadata: {
        provider: 'p',
        origin: 'stream_event',
        message: 'm',
        delivered: { chunks: 3, characters: 40 },
      },
    });
    const report = error.toErrorReport();
    expect(report.retryAfterSeconds).toBe(20);
    expect(report.delivered).toEqual({ chunks: 3, characters: 40 });
  });
  it("says fallback only where a chain's defaults would move on: never once output was delivered", () => {
    const overloaded = (delivered: { chunks: number; characters: number } | undefined) =>
      new FaultlineError('m', {
        classification: classificationFor('overloaded'),
        metadata: { provider: 'p', origin: 'stream_event', message: 'm', delivered },
      }).toErrorReport();
    expect(overloaded(undefined).recovery.fallback).toBe(true);
    expect(overloaded({ chunks: 0, characters: 0 }).recovery.fallback).toBe(true);
    expect(overloaded({ chunks: 3, characters: 40 }).recovery).toEqual({
      rotateCredential: false,
      fallback: false,
      compress: false,
    });
    // content_policy: a chain moves on only when the caller opts in.
    expect(
      classifyError(new Error('sdk'), {
        extractors: [
          {
            provider: 'openai',
            extract: () => ({ ...metadata, provider: 'openai', statusCode: 400, origin: 'blocked_response' }),
          },
        ],
      }).toErrorReport(),
    ).toMatchObject({ reason: 'content_policy', recovery: { fallback: false } });
  });
  it('once output was delivered, a row whose step is fallback says fix_configuration, in the report and the summary', async () => {
    const answers: Record<string, Omit<ProviderErrorMetadata, 'provider' | 'origin'>> = {
      quota: {
        statusCode: 429,
        providerCode: 'insufficient_quota',
        message: 'You exceeded your current quota.',
      },
      billing: { statusCode: 402, message: 'Payment required' },
      model_not_found: { statusCode: 404, message: 'The model `gpt-x` does not exist.' },
      permission: { statusCode: 403, message: 'Forbidden' },
    };
    for (const [reason, answer] of Object.entries(answers)) {
      const extractors = [
        {
          provider: 'openai',
          extract: (): ProviderErrorMetadata => ({ provider: 'openai', origin: 'http', ...answer }),
        },
      ];
      // A stream that delivered two chunks, then failed with the provider's answer.
      async function* cutAfterOutput() {
        yield 'Hel';
        yield 'lo';
        throw new Error('sdk');
      }
      const seen: string[] = [];
      const error = await (async () => {
        for await (const chunk of guardStream(cutAfterOutput(), {
          extractors,
          readChunk: () => ({ characters: 1, terminal: false }),
        }))
          seen.push(chunk);
      })().then(
        () => undefined,
        (thrown: unknown) => thrown as FaultlineError,
      );
      expect(seen).toEqual(['Hel', 'lo']);
      expect(error?.toErrorReport()).toMatchObject({
        reason,
        delivered: { chunks: 2 },
        nextStep: 'fix_configuration',
        recovery: { fallback: false },
      });
      expect(error?.stack?.split('\n')[2]).toMatch(/^ {2}next step: fix_configuration: /);
      // Before any output the chain's default stands: fall back.
      expect(classifyError(new Error('sdk'), { extractors }).toErrorReport()).toMatchObject({
        reason,
        nextStep: 'fallback',
        recovery: { fallback: true },
      });
    }
  });
  it('JSON.stringify(error) is the report', () => {
    const error = sample();
    expect(JSON.parse(JSON.stringify(error))).toStrictEqual(toDict(error.toErrorReport()));
  });
});
