import { describe, expect, it } from 'vitest';
import { classify } from './classify.ts';

describe('a 402 is billing whatever its words', () => {
  // Anthropic 402 billing_error, OpenRouter 402 "Insufficient credits ... billing", DeepSeek 402.
  for (const message of [
    'Your account has a billing issue. Please check your billing details.',
    'You exceeded your current quota, please check your plan and billing details.',
    'Insufficient Balance',
  ]) {
    it(message, () => {
      const result = classify({ provider: 'test', origin: 'http', statusCode: 402, message });
      expect(result.reason).toBe('billing');
      expect(result.category).toBe('capacity');
      expect(result.retryable).toBe(false);
    });
  }
});
