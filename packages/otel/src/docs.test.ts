import {
  docExamples,
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
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tracedChat } from '../examples/traced-chat.ts';
import { EVENT_RETRY, METRIC_FAILURES } from './index.ts';

const success = openaiChatCompletion('Hello');

const PAGE = 'docs/integrations/otel.md';
const serverError = loadScenarios('openai').find((scenario) => scenario.id === 'openai/server-error-json')!;

const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const meterProvider = new MeterProvider({ readers: [reader] });
let loopback: LoopbackServer;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  loopback = await startLoopbackServer();
});
afterAll(async () => {
  await loopback?.close();
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  trace.disable();
  metrics.disable();
  context.disable();
});

const client = (scenario: Scenario) =>
  new OpenAI({ baseURL: loopback.baseUrlFor(scenario), apiKey: 'sk-test', maxRetries: 0 });

it(`${PAGE} shows exactly the example file`, () => {
  const examples = docExamples(PAGE);
  expect(examples.map((example) => example.file)).toEqual(['packages/otel/examples/traced-chat.ts']);
  for (const example of examples) expect(example.shown, example.file).toBe(example.actual);
});

it('the example answers, and records nothing on success', async () => {
  spans.reset();
  await expect(tracedChat(client(success), 'Say hello')).resolves.toBe('Hello');
  const [span] = spans.getFinishedSpans();
  expect(span!.status.code).toBe(SpanStatusCode.UNSET);
  expect(span!.events).toEqual([]);
});

it('the example records a failure that outlived its retries', async () => {
  spans.reset();
  await expect(tracedChat(client(serverError), 'Say hello')).rejects.toThrow();
  const [span] = spans.getFinishedSpans();
  expect(span!.status.code).toBe(SpanStatusCode.ERROR);
  expect(span!.attributes).toMatchObject({
    'error.type': serverError.expected.reason,
    'gen_ai.request.model': 'gpt-4o-mini',
    'faultline.attempts': 3,
  });
  expect(span!.events.filter((event) => event.name === EVENT_RETRY)).toHaveLength(2);
  expect(span!.events.filter((event) => event.name === 'exception')).toHaveLength(1);
  await reader.forceFlush();
  const failures = metricExporter
    .getMetrics()
    .at(-1)
    ?.scopeMetrics.flatMap((scope) => scope.metrics)
    .find((metric) => metric.descriptor.name === METRIC_FAILURES)?.dataPoints as DataPoint<number>[];
  expect(failures.map((point) => point.value)).toEqual([1]);
});
