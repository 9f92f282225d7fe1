// biome-ignore-all lint/suspicious/noThenProperty: scenario contract
import { FaultlineError } from '@faultline/render';
import { expectedFor, loadScenarios, type Scenario, startLoopbackServer } from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_DIFFERENCES } from './cross-check-table.ts';
import { guardLangChainStream } from './guard-langchain-stream.ts';
import { chatModelFor, PROVIDERS, type Servers } from './test-support.ts';

// Every stream scenario of the six providers, through the real LangChain chat model's `.stream()`
// read through guardLangChainStream: the guard must give what it throws the scenario's expected
// classification, with the output delivered before the failure, and must end a stalled stream
// by its own idle timer (the chat models' timeouts are set far beyond it here).

let servers: Servers;
beforeAll(async () => {
  servers = {
    http1: await startLoopbackServer({ protocol: 'http1' }),
    h2c: await startLoopbackServer({ protocol: 'h2c' }),
  };
});
afterAll(async () => {
  await servers?.http1.close();
  await servers?.h2c.close();
});

const IDLE_MS = 1_000;

function stalls(scenario: Scenario): boolean {
  const response = scenario.response;
  return (response.kind === 'sse' || response.kind === 'aws-event-stream') && response.then === 'stall';
}

/** Drains the guarded stream; the error it threw, or `undefined` when it ended normally. */
async function drive(
  provider: (typeof PROVIDERS)[number],
  scenario: Scenario,
): Promise<{ thrown: unknown; chunks: number; ms: number }> {
  const model = chatModelFor(provider, scenario, servers);
  const controller = new AbortController();
  const started = performance.now();
  let chunks = 0;
  try {
    // The promise itself: `.stream()` rejects when the request fails before the first chunk.
    const stream = model.stream('Say hello', { signal: controller.signal });
    for await (const _chunk of guardLangChainStream(stream, {
      provider: model._llmType(),
      idleTimeoutMs: stalls(scenario) ? IDLE_MS : 30_000,
      onAbandon: () => controller.abort(),
    })) {
      chunks += 1;
    }
  } catch (error) {
    return { thrown: error, chunks, ms: performance.now() - started };
  }
  return { thrown: undefined, chunks, ms: performance.now() - started };
}

for (const provider of PROVIDERS) {
  const streams = loadScenarios(provider).filter((scenario) => scenario.stream === true);
  describe(`${provider}: guardLangChainStream on the real chat model's .stream()`, () => {
    it('has stream scenarios', () => {
      expect(streams.length).toBeGreaterThan(0);
    });
    for (const scenario of streams) {
      it.concurrent(scenario.id, async () => {
        const expected = expectedFor(scenario);
        const { thrown, chunks, ms } = await drive(provider, scenario);
        const known = KNOWN_DIFFERENCES[scenario.id];
        if (known?.actual === 'resolved') {
          // LangChain drops these chunks (see the cross-check table): nothing fails, even guarded.
          expect(thrown, `${scenario.id}: ${known.why}`).toBeUndefined();
          return;
        }
        expect(FaultlineError.isInstance(thrown), `${scenario.id} threw ${String(thrown)}`).toBe(true);
        const report = (thrown as FaultlineError).toErrorReport();
        expect(
          { category: report.category, reason: report.reason, retryable: report.retryable },
          scenario.id,
        ).toEqual({ category: expected.category, reason: expected.reason, retryable: expected.retryable });
        if (chunks > 0) expect(report.delivered?.chunks, scenario.id).toBe(chunks);
        if (stalls(scenario)) {
          // Ended by the guard's idle timer, well before any timeout of the chat model or its SDK.
          expect(ms).toBeLessThan(IDLE_MS + 10_000);
          expect(report.delivered?.chunks ?? 0).toBeGreaterThan(0);
        }
        expect(JSON.stringify(report)).not.toContain('sk-test-faultline-canary');
      });
    }
  });
}
