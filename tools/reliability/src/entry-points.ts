import {
  faultlineBackoffStrategy,
  recoverErrorReport as recoverJobReport,
  withFaultlineProcessor,
} from '@faultline/bullmq';
import { classify, type Extractor } from '@faultline/classify';
import {
  type ErrorReport,
  exitCodeFor,
  FaultlineError,
  formatForLlm,
  formatMarkdown,
  formatPanel,
  guardStream,
  httpResponseFor,
  problemDetails,
  toDict,
  toErrorReport,
  toolResultFor,
  toWireError,
  withClassifiedErrors,
} from '@faultline/render';
import { type BoundWithClassifiedErrors, safeFromDict } from '@faultline/render/toolkit';
import { DRIVEN_PROVIDERS, loadAdapter } from '@faultline/scenario-driver';
import { recoverErrorReport as recoverWorkflowReport, withFaultlineActivity } from '@faultline/temporal';

// Every provider in providers.json, its package loaded through the scenario driver.
const ADAPTERS = await Promise.all(
  DRIVEN_PROVIDERS.map(async (provider) => [provider, await loadAdapter(provider)] as const),
);

/** Each provider package's extractor, by provider (providers.json's order). */
export const EXTRACTORS: Readonly<Record<string, Extractor>> = Object.fromEntries(
  ADAPTERS.map(([provider, adapter]) => [provider, adapter.extractor]),
);

/** Each provider package's bound `withClassifiedErrors`. */
export const BOUND_WRAPPERS: Readonly<Record<string, BoundWithClassifiedErrors>> = Object.fromEntries(
  ADAPTERS.map(([provider, adapter]) => [provider, adapter.withClassifiedErrors]),
);

/**
 * One public entry point, called with a hostile value. `call` returns what the entry point
 * produced, turned into text (so a test can look for secrets in it); it throws (with a
 * description) when the entry point broke its contract: threw, returned something invalid, or
 * rejected with something that is not classified.
 */
export interface EntryPoint {
  readonly name: string;
  call(value: unknown): Promise<string>;
}

function assertReport(value: unknown, where: string): ErrorReport {
  const parsed = safeFromDict(value);
  if (!parsed.success)
    throw new Error(`${where} gave an invalid report: ${parsed.error.message.slice(0, 500)}`);
  return parsed.data;
}

function assertText(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new Error(`${where} gave ${typeof value}, not text`);
  return value;
}

function json(value: unknown, where: string): string {
  const text = JSON.stringify(value);
  if (typeof text !== 'string') throw new Error(`${where} gave a value JSON cannot write`);
  return text;
}

async function rejection(promise: Promise<unknown>, where: string): Promise<unknown> {
  try {
    await promise;
  } catch (thrown) {
    return thrown;
  }
  throw new Error(`${where} resolved although the call threw`);
}

async function classifiedRejection(promise: Promise<unknown>, where: string): Promise<string> {
  const thrown = await rejection(promise, where);
  if (!FaultlineError.isInstance(thrown)) throw new Error(`${where} rejected with something unclassified`);
  const report = assertReport(toErrorReport(thrown), where);
  return [safeMessage(thrown), json(report, where)].join('\n');
}

function safeMessage(value: unknown): string {
  try {
    const message = (value as { message?: unknown }).message;
    return typeof message === 'string' ? message : '';
  } catch {
    return '';
  }
}

function throwing(value: unknown): () => Promise<never> {
  return async () => {
    throw value;
  };
}

/** A stream that yields one chunk and then throws `value`. */
async function* failingStream(value: unknown): AsyncGenerator<string> {
  yield 'first chunk';
  throw value;
}

export const ENTRY_POINTS: readonly EntryPoint[] = [
  ...Object.entries(EXTRACTORS).map(
    ([provider, extractor]): EntryPoint => ({
      name: `${provider} extract`,
      async call(value) {
        const metadata = extractor.extract(value, { signal: new AbortController().signal, now: () => 0 });
        if (metadata === undefined) return '';
        if (typeof metadata !== 'object' || metadata === null) throw new Error('extract gave a non-object');
        const classification = classify(metadata);
        return json({ metadata, classification }, `${provider} extract`);
      },
    }),
  ),
  {
    name: 'classify',
    async call(value) {
      return json(classify(value as never), 'classify');
    },
  },
  {
    name: 'toErrorReport',
    async call(value) {
      return json(assertReport(toErrorReport(value), 'toErrorReport'), 'toErrorReport');
    },
  },
  {
    name: 'formatPanel',
    call: async (value) => assertText(formatPanel(value as Error, { color: true }), 'formatPanel'),
  },
  { name: 'toDict', call: async (value) => json(toDict(value as Error), 'toDict') },
  {
    name: 'formatMarkdown',
    call: async (value) => assertText(formatMarkdown(value as Error), 'formatMarkdown'),
  },
  { name: 'formatForLlm', call: async (value) => assertText(formatForLlm(value as Error), 'formatForLlm') },
  {
    name: 'toolResultFor',
    call: async (value) =>
      json(toolResultFor(value as Error, { toolUseId: 'toolu_hostile' }), 'toolResultFor'),
  },
  {
    name: 'toWireError',
    async call(value) {
      // The value is also passed as the extras object (a Proxy, getters that throw, a 50 MB typed
      // array): that must not throw. Extras are the caller's values, so only reserved keys are written.
      const { error, category, detail } = toWireError(value as Error, value as Record<string, unknown>);
      const withExtras = toWireError(value as Error, { attempt: 1 });
      return json({ hostileExtras: { error, category, detail }, withExtras }, 'toWireError');
    },
  },
  {
    name: 'problemDetails',
    call: async (value) => json(problemDetails(value as Error, { instance: '/hostile' }), 'problemDetails'),
  },
  {
    name: 'httpResponseFor',
    call: async (value) => json(httpResponseFor(value as Error), 'httpResponseFor'),
  },
  {
    name: 'exitCodeFor',
    async call(value) {
      const code = exitCodeFor(value as Error);
      if (code !== 1 && code !== 2) throw new Error(`exitCodeFor gave ${String(code)}`);
      return String(code);
    },
  },
  {
    name: 'withClassifiedErrors',
    call: (value) =>
      // Retries off: the entry below covers the retry loop without its waits.
      classifiedRejection(
        withClassifiedErrors(throwing(value), { extractors: [], retry: false }),
        'withClassifiedErrors',
      ),
  },
  {
    name: 'withClassifiedErrors with retry and a signal',
    call: (value) =>
      classifiedRejection(
        withClassifiedErrors(throwing(value), {
          extractors: [],
          retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterSeconds: 0 },
          signal: new AbortController().signal,
          deadlineMs: 5_000,
        }),
        'withClassifiedErrors with retry',
      ),
  },
  {
    name: 'withClassifiedErrors whose fn throws synchronously',
    call: (value) =>
      classifiedRejection(
        withClassifiedErrors(
          () => {
            throw value;
          },
          { extractors: [], retry: false },
        ),
        'withClassifiedErrors (sync throw)',
      ),
  },
  ...Object.entries(BOUND_WRAPPERS).map(
    ([provider, bound]): EntryPoint => ({
      name: `${provider} withClassifiedErrors`,
      call: (value) =>
        classifiedRejection(
          bound(throwing(value), {
            retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterSeconds: 0 },
          }),
          `${provider} withClassifiedErrors`,
        ),
    }),
  ),
  {
    name: 'withClassifiedErrors inspectResult given the value as a result',
    async call(value) {
      // A hostile *success* result must not break the bound wrappers' result inspectors.
      const outputs: string[] = [];
      for (const [provider, bound] of Object.entries(BOUND_WRAPPERS)) {
        try {
          await bound(async () => value);
          outputs.push('ok');
        } catch (thrown) {
          if (!FaultlineError.isInstance(thrown))
            throw new Error(`${provider} inspectResult threw something unclassified`);
          outputs.push(json(assertReport(toErrorReport(thrown), provider), provider));
        }
      }
      return outputs.join('\n');
    },
  },
  {
    name: 'guardStream (thrown mid-stream)',
    async call(value) {
      const chunks: string[] = [];
      const thrown = await rejection(
        (async () => {
          for await (const chunk of guardStream(failingStream(value), { idleTimeoutMs: 1_000 }))
            chunks.push(chunk);
        })(),
        'guardStream',
      );
      if (!FaultlineError.isInstance(thrown)) throw new Error('guardStream threw something unclassified');
      if (chunks.length !== 1) throw new Error(`guardStream passed ${chunks.length} chunks through, not 1`);
      return json(assertReport(toErrorReport(thrown), 'guardStream'), 'guardStream');
    },
  },
  {
    name: "guardStream result method (the SDK helper's finalMessage() rejects with the value)",
    async call(value) {
      // A stream helper in the SDKs' manner: a complete stream, then a result method that fails.
      const helper = {
        async *[Symbol.asyncIterator]() {
          yield 'Hello';
        },
        finalMessage: () => Promise.reject(value),
      };
      const thrown = await rejection(guardStream(helper).finalMessage(), 'guardStream finalMessage()');
      if (!FaultlineError.isInstance(thrown))
        throw new Error('finalMessage() rejected with something unclassified');
      return json(
        assertReport(toErrorReport(thrown), 'guardStream finalMessage()'),
        'guardStream finalMessage()',
      );
    },
  },
  {
    name: 'guardStream (the value as the stream)',
    async call(value) {
      try {
        for await (const _chunk of guardStream(value as AsyncIterable<unknown>, { idleTimeoutMs: 1_000 })) {
          // Whatever it yields, only that it ends matters.
        }
        return '';
      } catch (thrown) {
        if (!FaultlineError.isInstance(thrown)) throw new Error('guardStream threw something unclassified');
        return json(assertReport(toErrorReport(thrown), 'guardStream'), 'guardStream');
      }
    },
  },
  {
    name: 'temporal withFaultlineActivity',
    async call(value) {
      const thrown = await rejection(withFaultlineActivity(throwing(value))(), 'withFaultlineActivity');
      const failure = thrown as { name?: unknown; message?: unknown; details?: unknown; type?: unknown };
      if (failure?.name !== 'ApplicationFailure')
        throw new Error('withFaultlineActivity threw no ApplicationFailure');
      const details = failure.details as unknown[];
      assertReport(details[0], 'withFaultlineActivity details[0]');
      return [String(failure.message), json(details, 'withFaultlineActivity')].join('\n');
    },
  },
  {
    name: 'temporal recoverErrorReport',
    call: async (value) =>
      json(assertReport(recoverWorkflowReport(value), 'temporal recoverErrorReport'), 'temporal'),
  },
  {
    name: 'bullmq withFaultlineProcessor',
    async call(value) {
      const thrown = await rejection(withFaultlineProcessor(throwing(value))({}), 'withFaultlineProcessor');
      const jobError = thrown as { name?: unknown; message?: unknown; report?: unknown };
      if (jobError?.name !== 'FaultlineJobError' && jobError?.name !== 'UnrecoverableError')
        throw new Error('withFaultlineProcessor threw something BullMQ cannot act on');
      assertReport(jobError.report, 'withFaultlineProcessor report');
      // What BullMQ stores as `job.failedReason` must read back as the report.
      assertReport(recoverJobReport({ failedReason: jobError.message }), 'bullmq failedReason');
      return String(jobError.message);
    },
  },
  {
    name: 'bullmq recoverErrorReport',
    async call(value) {
      const outputs = [
        json(assertReport(recoverJobReport(value), 'bullmq recoverErrorReport(job)'), 'bullmq'),
        json(
          assertReport(recoverJobReport({ failedReason: value }), 'bullmq recoverErrorReport(failedReason)'),
          'bullmq',
        ),
      ];
      return outputs.join('\n');
    },
  },
  {
    name: 'bullmq faultlineBackoffStrategy',
    async call(value) {
      const strategy = faultlineBackoffStrategy({ baseDelayMs: 10, maxDelayMs: 100 });
      const delays = [
        strategy(1, 'faultline', value as Error, value),
        strategy(3, 'faultline', value as Error, { opts: { backoff: { delay: value } } }),
      ];
      for (const delay of delays) {
        if (typeof delay !== 'number' || Number.isNaN(delay) || (delay < 0 && delay !== -1))
          throw new Error(`faultlineBackoffStrategy gave ${String(delay)}`);
      }
      return delays.join(',');
    },
  },
];
