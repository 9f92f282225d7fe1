import { toErrorReport } from '@faultline/render';
import { describe, expect, it } from 'vitest';
import { disagreements, pickAiSdkRow } from './ai-sdk-rows.ts';
import type { DemoResult } from './demo-command.ts';

const base = toErrorReport(new Error('failed'));
const rateLimit = { ...base, category: 'transient', reason: 'rate_limit', retryable: true } as const;

function row(label: string, problems: string[] = []): DemoResult {
  return { provider: 'openai', scenario: `openai/${label}`, label, report: rateLimit, problems };
}

describe('the AI SDK row', () => {
  it('replays the rate limit row, else the overload row, and never a broken row', () => {
    expect(pickAiSdkRow([row('quota'), row('overload'), row('rate limit')])?.label).toBe('rate limit');
    expect(pickAiSdkRow([row('rate limit', ['mismatch']), row('overload')])?.label).toBe('overload');
    expect(pickAiSdkRow([row('quota')])).toBeUndefined();
  });

  it('names each of category, reason and retryable where the two rows disagree', () => {
    expect(disagreements(rateLimit, { ...rateLimit })).toEqual([]);
    expect(disagreements(rateLimit, { ...rateLimit, reason: 'overloaded' })).toEqual([
      'through the AI SDK reason is "overloaded", through the provider\'s SDK "rate_limit"',
    ]);
    const auth = { ...rateLimit, category: 'configuration', reason: 'auth', retryable: false } as const;
    expect(disagreements(rateLimit, auth).map((problem) => problem.split(' ')[4])).toEqual([
      'category',
      'reason',
      'retryable',
    ]);
  });
});
