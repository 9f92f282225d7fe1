import { describe, expect, it } from 'vitest';
import { MODEL_CATALOG_SOURCE, modelLimits } from './index.ts';

describe('the model catalog', () => {
  it('says where its data comes from and as of when', () => {
    expect(MODEL_CATALOG_SOURCE.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Number.isNaN(Date.parse(MODEL_CATALOG_SOURCE.date))).toBe(false);
  });

  it("finds a model under faultline's and the AI SDK's provider names, a dated snapshot under its alias, a Gemini resource name under its id", () => {
    const claude = modelLimits('anthropic', 'claude-sonnet-4-5');
    expect(claude?.contextWindow).toBeGreaterThan(0);
    expect(claude?.maxOutputTokens).toBeGreaterThan(0);
    expect(modelLimits('anthropic', 'claude-sonnet-4-5-20990101')).toEqual(claude);
    const gemini = modelLimits('google', 'gemini-2.5-flash');
    expect(gemini?.contextWindow).toBeGreaterThan(0);
    expect(modelLimits('google-genai', 'models/gemini-2.5-flash')).toEqual(gemini);
    expect(modelLimits('bedrock', 'anthropic.claude-sonnet-4-6')).toEqual(
      modelLimits('amazon-bedrock', 'anthropic.claude-sonnet-4-6'),
    );
  });

  it('never guesses: an unknown provider or model, or a value that is not a string, has no limits', () => {
    expect(modelLimits('openai', 'gpt-unheard-of')).toBeUndefined();
    expect(modelLimits('nobody', 'gpt-4o')).toBeUndefined();
    expect(modelLimits('openai', 'constructor')).toBeUndefined();
    expect(modelLimits('__proto__', 'gpt-4o')).toBeUndefined();
    expect(modelLimits(null as never, undefined as never)).toBeUndefined();
  });
});
