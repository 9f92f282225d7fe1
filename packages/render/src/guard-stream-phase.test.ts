import { defineExtractor } from '@faultline/classify/toolkit';
import { describe, expect, it } from 'vitest';
import { guardStream } from './guard-stream.ts';

describe('a deadline that fires mid-stream', () => {
  it('is an interruption (ambiguous, not retried), even when the extractor cannot tell the phase', async () => {
    // A real TimeoutError, as an SDK whose own timeout covers stream reads (Mistral 2) throws it.
    const signal = AbortSignal.timeout(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const timeoutError = signal.reason as DOMException;
    expect(timeoutError.name).toBe('TimeoutError');
    async function* source() {
      yield 'first chunk';
      throw timeoutError;
    }
    // An extractor that knows the SDK but not the phase, as a provider extractor reports it.
    const extractor = defineExtractor({
      provider: 'test',
      extract: (error) =>
        error === timeoutError
          ? { provider: 'test', origin: 'timeout', networkPhase: 'unknown', message: 'Request timed out' }
          : undefined,
    });
    const chunks: string[] = [];
    let caught: unknown;
    try {
      for await (const chunk of guardStream(source(), { extractors: [extractor], idleTimeoutMs: 5000 })) {
        chunks.push(chunk);
      }
    } catch (error) {
      caught = error;
    }
    expect(chunks).toEqual(['first chunk']);
    const report = (
      caught as { toErrorReport(): { reason: string; retryable: boolean; delivered?: unknown } }
    ).toErrorReport();
    expect(report.reason).toBe('interrupted');
    expect(report.retryable).toBe(false);
    expect(report.delivered).toEqual({ chunks: 1, characters: expect.any(Number) });
  });
});
