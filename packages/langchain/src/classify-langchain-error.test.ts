import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  classifyLangChainError,
  detectLangChainBlockedAnswer,
  PROVIDER_EXTRACTORS,
  providerFromLlmType,
} from './classify-langchain-error.ts';

describe('providers.json', () => {
  it('every provider of the list has its extractor here (a new provider fails this until added)', () => {
    const list = JSON.parse(readFileSync(new URL('../../../providers.json', import.meta.url), 'utf8')) as {
      providers: { name: string }[];
    };
    expect(Object.keys(PROVIDER_EXTRACTORS).sort()).toEqual(
      list.providers.map((provider) => provider.name).sort(),
    );
  });
});

describe('providerFromLlmType', () => {
  it.each([
    ['openai', 'openai'],
    ['azure_openai', 'openai'],
    ['anthropic', 'anthropic'],
    ['googlegenerativeai', 'google-genai'],
    ['amazon_bedrock_converse', 'bedrock'],
    ['mistral_ai', 'mistral'],
    ['groq', 'groq'],
    ['ollama', 'ollama'],
    ['cohere', 'cohere'],
    ['hf', 'huggingface'],
    ['huggingface_hub', 'huggingface'],
    ['openrouter', 'openrouter'],
  ])('%s → %s', (type, provider) => {
    expect(providerFromLlmType(type)).toBe(provider);
  });

  it.each([undefined, 42, 'llamafile', 'x'.repeat(500)])('%s → undefined', (type) => {
    expect(providerFromLlmType(type)).toBeUndefined();
  });
});

describe('totality', () => {
  it('classifies hostile values without throwing', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('getter');
        },
      },
    );
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    for (const value of [
      null,
      undefined,
      'text',
      hostile,
      cyclic,
      { status: 500, statusText: 'x', errorDetails: 7 },
    ]) {
      const report = classifyLangChainError(value, { provider: 'google_genai' }).toErrorReport();
      expect(typeof report.reason).toBe('string');
    }
  });
});

describe('detectLangChainBlockedAnswer: openrouter', () => {
  it("reads a message's content_filter finish as withheld, an ordinary finish as an answer", () => {
    const blocked = { content: '', response_metadata: { finish_reason: 'content_filter' } };
    expect(detectLangChainBlockedAnswer(blocked, 'openrouter')).toMatchObject({
      provider: 'openrouter',
      origin: 'blocked_response',
      blockReason: 'content_filter',
    });
    const answered = { content: 'Hello', response_metadata: { finish_reason: 'stop' } };
    expect(detectLangChainBlockedAnswer(answered, 'openrouter')).toBeUndefined();
  });
});
