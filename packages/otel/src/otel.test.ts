import { withClassifiedErrors } from '@faultline/extract-openai';
import type { RetryEvent } from '@faultline/render';
import {
  type LoopbackServer,
  loadScenarios,
  openaiChatCompletion,
  type Scenario,
  startLoopbackServer,
} from '@faultline/test-fixtures';
import { context, metrics, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_FALLBACK,
  EVENT_RETRY,
  faultlineOnRetry,
  METRIC_FAILURES,
  METRIC_RETRY_WAIT,
  recordFailure,
  recordFallback,
} from './index.ts';

const success = openaiChatCompletion('Hello', 'gpt-4o');

const ORG_CANARY = 'org-CanaryOtel4Kp';
const KEY_CANARY = 'sk-proj-CanaryOtelKey0123456789abcdef';
const PROMPT_CANARY = 'PROMPT-CANARY: my secret plan';

function scenario(id: string): Scenario {
  const found = loadScenarios('openai').find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no scenario ${id}`);
  return found;
}

const serverError = scenario('openai/server-error-json');
const rateLimit = scenario('openai/rate-limit-retry-after-ms');
const modelNotFound = scenario('openai/model-not-found');
const orgCanary = {
  id: 'openai/otel-org-canary',
  provider: 'openai',
  description: 'a 401 that names the organization and quotes the key',
  source: 'https://platform.openai.com/docs/guides/error-codes',
  response: {
    kind: 'http',
    status: 401,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      error: {
        message: `Incorrect API key provided: ${KEY_CANARY}. Organization ${ORG_CANARY} cannot use it.`,
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    }),
  },
  expected: {
    category: 'configuration',
    reason: 'auth',
    retryable: false,
    userAction: 'check_credentials',
    httpStatus: 500,
  },
} as Scenario;

const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const meterProvider = new MeterProvider({ readers: [reader] });
const contextManager = new AsyncLocalStorageContextManager();
let server: LoopbackServer;

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  server = await startLoopbackServer();
});
afterAll(async () => {
  await server?.close();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  trace.disable();
  metrics.disable();
  context.disable();
});
afterEach(async () => {
  spans.reset();
});

function chat(target: Scenario, model: string, signal: AbortSignal | undefined) {
  const client = new OpenAI({ baseURL: server.baseUrlFor(target), apiKey: KEY_CANARY, maxRetries: 0 });
  return client.chat.completions.create(
    { model, messages: [{ role: 'user', content: PROMPT_CANARY }] },
    { signal },
  );
}

/** One traced model call in an active span, the way an app instruments it; returns the ended span. */
async function tracedCall(target: Scenario, retry: false | { maxAttempts: number; events: RetryEvent[] }) {
  const tracer = trace.getTracer('faultline-test');
  await tracer.startActiveSpan('chat gpt-4o-mini', async (span) => {
    try {
      const onRetry = faultlineOnRetry();
      await withClassifiedErrors(({ signal }) => chat(target, 'gpt-4o-mini', signal), {
        model: 'gpt-4o-mini',
        retry:
          retry === false
            ? false
            : {
                maxAttempts: retry.maxAttempts,
                baseDelayMs: 5,
                onRetry: (event) => {
                  retry.events.push(event);
                  onRetry(event);
                },
              },
      });
    } catch (error) {
      recordFailure(error);
    } finally {
      span.end();
    }
  });
  const [span] = spans.getFinishedSpans();
  return span!;
}

async function collected(name: string) {
  await reader.forceFlush();
  const all =
    metricExporter
      .getMetrics()
      .at(-1)
      ?.scopeMetrics.flatMap((scope) => scope.metrics) ?? [];
  return all.find((metric) => metric.descriptor.name === name)?.dataPoints ?? [];
}

function everything(span: ReadableSpan): string {
  return JSON.stringify({ attributes: span.attributes, events: span.events, status: span.status });
}

describe('OpenTelemetry, with the real openai SDK on the loopback server', () => {
  it('records a transient failure that outlived its retries: semantic and GenAI attributes, exception event, ERROR status, retry events', async () => {
    const events: RetryEvent[] = [];
    const span = await tracedCall(serverError, { maxAttempts: 3, events });
    const expected = serverError.expected;
    expect(events).toHaveLength(2);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'error.type': expected.reason,
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'faultline.category': expected.category,
      'faultline.reason': expected.reason,
      'faultline.retryable': expected.retryable,
      'faultline.attempts': events.length + 1,
    });
    const retries = span.events.filter((event) => event.name === EVENT_RETRY);
    expect(retries.map((event) => event.attributes?.['faultline.retry.attempt'])).toEqual(
      events.map((event) => event.attempt),
    );
    expect(retries.map((event) => event.attributes?.['faultline.retry.delay_seconds'])).toEqual(
      events.map((event) => event.delayMs / 1000),
    );
    const [exception] = span.events.filter((event) => event.name === 'exception');
    expect(exception?.attributes?.['exception.type']).toBe(events[0]!.report.errorType);
    expect(exception?.attributes?.['exception.message']).toBeTypeOf('string');
    expect(exception?.attributes?.['exception.stacktrace']).toBeUndefined();

    const failures = (await collected(METRIC_FAILURES)) as DataPoint<number>[];
    const point = failures.find((candidate) => candidate.attributes['faultline.reason'] === expected.reason);
    expect(point?.value).toBe(1);
    expect(point?.attributes).toMatchObject({
      'gen_ai.provider.name': 'openai',
      'faultline.retryable': true,
    });
    const waits = (await collected(METRIC_RETRY_WAIT)) as DataPoint<Histogram>[];
    const wait = waits.find((candidate) => candidate.attributes['faultline.reason'] === expected.reason);
    expect(wait?.value.count).toBe(events.length);
    expect(wait?.value.sum).toBeCloseTo(
      events.reduce((sum, event) => sum + event.delayMs / 1000, 0),
      9,
    );
  });

  it("puts the provider's Retry-After on the span", async () => {
    const span = await tracedCall(rateLimit, false);
    expect(span.attributes['faultline.reason']).toBe(rateLimit.expected.reason);
    expect(span.attributes['faultline.retry_after_seconds']).toBe(rateLimit.expected.retryAfterSeconds);
  });

  it('never puts the key or the prompt on the span', async () => {
    const span = await tracedCall(orgCanary, false);
    expect(span.attributes['faultline.reason']).toBe(orgCanary.expected.reason);
    expect(everything(span)).not.toContain(KEY_CANARY);
    expect(everything(span)).not.toContain('CanaryOtelKey');
    expect(everything(span)).not.toContain(PROMPT_CANARY);
  });

  // Issue 14: render's problemDetails gains `disclosure`; at 'scrubbed' (this package's default)
  // the provider's words lose their organization ids. Until it lands the message still names it.
  it('keeps the organization id the provider named off the span', async () => {
    const span = await tracedCall(orgCanary, false);
    expect(span.attributes['faultline.reason']).toBe(orgCanary.expected.reason);
    expect(everything(span)).not.toContain(ORG_CANARY);
  });

  it('records a fallback to another model as a span event', async () => {
    const tracer = trace.getTracer('faultline-test');
    const answer = await tracer.startActiveSpan('chat with fallback', async (span) => {
      try {
        return await withClassifiedErrors(({ signal }) => chat(modelNotFound, 'gpt-5-nope', signal), {
          model: 'gpt-5-nope',
        });
      } catch (error) {
        recordFallback(error, { provider: 'openai', model: 'gpt-4o' });
        return await withClassifiedErrors(({ signal }) => chat(success, 'gpt-4o', signal), {
          model: 'gpt-4o',
        });
      } finally {
        span.end();
      }
    });
    expect(answer.choices[0]?.message.content).toBe('Hello');
    const [span] = spans.getFinishedSpans();
    const [fallback] = span!.events.filter((event) => event.name === EVENT_FALLBACK);
    expect(fallback?.attributes).toMatchObject({
      'faultline.reason': modelNotFound.expected.reason,
      'gen_ai.request.model': 'gpt-5-nope',
      'faultline.fallback.to.provider': 'openai',
      'faultline.fallback.to.model': 'gpt-4o',
    });
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("counts the attempts of the call that failed, not its predecessor's in a fallback chain", async () => {
    const tracer = trace.getTracer('faultline-test');
    const onRetry = faultlineOnRetry();
    await tracer.startActiveSpan('chat with fallback', async (span) => {
      const call = (model: string, maxAttempts: number) =>
        withClassifiedErrors(({ signal }) => chat(serverError, model, signal), {
          model,
          retry: { maxAttempts, baseDelayMs: 1, onRetry },
        });
      try {
        await call('gpt-4o-mini', 3);
      } catch (error) {
        recordFallback(error, { provider: 'openai', model: 'gpt-4o' });
        await call('gpt-4o', 2).catch((second: unknown) => recordFailure(second));
      } finally {
        span.end();
      }
    });
    const [span] = spans.getFinishedSpans();
    expect(span!.events.filter((event) => event.name === EVENT_RETRY)).toHaveLength(3);
    expect(span!.attributes['faultline.attempts']).toBe(2);
    expect(span!.attributes['gen_ai.request.model']).toBe('gpt-4o');
  });

  it('leaves alone an error that is not a FaultlineError, and a call with no active span', async () => {
    const tracer = trace.getTracer('faultline-test');
    tracer.startActiveSpan('not ours', (span) => {
      expect(recordFailure(new TypeError('a bug of our own'))).toBeUndefined();
      span.end();
    });
    const [span] = spans.getFinishedSpans();
    expect(span!.events).toEqual([]);
    expect(span!.status.code).toBe(SpanStatusCode.UNSET);
    // Outside any span: the counter still counts.
    const before = ((await collected(METRIC_FAILURES)) as DataPoint<number>[])
      .filter((point) => point.attributes['faultline.reason'] === 'auth')
      .reduce((sum, point) => sum + point.value, 0);
    const error = await withClassifiedErrors(({ signal }) => chat(orgCanary, 'gpt-4o-mini', signal)).catch(
      (thrown: unknown) => thrown,
    );
    expect(recordFailure(error)?.reason).toBe('auth');
    const after = ((await collected(METRIC_FAILURES)) as DataPoint<number>[])
      .filter((point) => point.attributes['faultline.reason'] === 'auth')
      .reduce((sum, point) => sum + point.value, 0);
    expect(after - before).toBe(1);
  });
});

describe('total', () => {
  const hostile = new Proxy(
    {},
    {
      get() {
        throw new Error('get');
      },
    },
  );

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'boom'],
    ['a Proxy whose getters throw', hostile],
  ])('recordFailure and recordFallback leave %s alone', (_name, value) => {
    expect(recordFailure(value)).toBeUndefined();
    expect(recordFallback(value, { model: 'x' })).toBeUndefined();
  });

  it('a retry listener never throws on a malformed event', () => {
    const onRetry = faultlineOnRetry();
    expect(() => onRetry(hostile as RetryEvent)).not.toThrow();
    expect(() => onRetry({} as RetryEvent)).not.toThrow();
  });
});
