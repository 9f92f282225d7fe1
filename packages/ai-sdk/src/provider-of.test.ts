import { describe, expect, it } from 'vitest';
import { providerFromId, providerFromUrl } from './provider-of.ts';

describe('providerFromId', () => {
  it.each([
    ['openai.chat', 'openai'],
    ['openai.responses', 'openai'],
    ['azure.chat', 'openai'],
    ['anthropic.messages', 'anthropic'],
    ['google.generative-ai', 'google-genai'],
    ['google.vertex.chat', 'google-genai'],
    ['amazon-bedrock', 'bedrock'],
    ['mistral.chat', 'mistral'],
    ['groq.chat', 'groq'],
    ['cohere.chat', 'cohere'],
    ['google-genai', 'google-genai'],
    ['bedrock', 'bedrock'],
    // @ai-sdk/xai, @ai-sdk/deepseek, @openrouter/ai-sdk-provider, @ai-sdk/azure (responses too).
    ['xai.chat', 'openai'],
    ['xai.responses', 'openai'],
    ['deepseek.chat', 'openai'],
    ['openrouter.chat', 'openrouter'],
    ['azure.responses', 'openai'],
    // @ai-sdk/google-vertex's Claude models speak Anthropic's API; its Gemini ones Google's.
    ['vertex.anthropic.messages', 'anthropic'],
    ['google.vertex.anthropic.messages', 'anthropic'],
    ['google.vertex.embedding', 'google-genai'],
    ['gateway', 'openai'],
    ['huggingface.responses', 'huggingface'],
  ])('%s → %s', (id, provider) => {
    expect(providerFromId(id)).toBe(provider);
  });

  it.each([undefined, null, 42, '', 'llamafile.chat', 'x'.repeat(500)])('%s → undefined', (id) => {
    expect(providerFromId(id)).toBeUndefined();
  });
});

describe('providerFromUrl', () => {
  it.each([
    ['https://api.openai.com/v1/chat/completions', 'openai'],
    [
      'https://my-resource.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=1',
      'openai',
    ],
    ['https://openrouter.ai/api/v1/chat/completions', 'openrouter'],
    ['https://ai-gateway.vercel.sh/v3/ai/language-model', 'openai'],
    ['https://api.anthropic.com/v1/messages', 'anthropic'],
    [
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
      'google-genai',
    ],
    [
      'https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/l/publishers/google/models/m:generateContent',
      'google-genai',
    ],
    ['https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude/converse', 'bedrock'],
    ['https://api.mistral.ai/v1/chat/completions', 'mistral'],
    ['https://api.groq.com/openai/v1/chat/completions', 'groq'],
    ['https://api.cohere.com/v2/chat', 'cohere'],
    ['https://router.huggingface.co/v1/chat/completions', 'huggingface'],
    ['https://xyz123.us-east-1.aws.endpoints.huggingface.cloud/v1/chat/completions', 'huggingface'],
    // A proxy or gateway: the API path names the provider.
    ['http://127.0.0.1:8080/proxy/v1/messages', 'anthropic'],
    ['http://gateway.internal/models/gemini:streamGenerateContent?alt=sse', 'google-genai'],
    ['http://gateway.internal/model/amazon.nova-pro-v1%3A0/converse-stream', 'bedrock'],
    ['https://api.x.ai/v1/chat/completions', 'openai'],
    ['https://api.deepseek.com/chat/completions', 'openai'],
    ['https://my-project.services.ai.azure.com/openai/v1/chat/completions', 'openai'],
    // Claude on Vertex AI: Google's host, Anthropic's API.
    [
      'https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict',
      'anthropic',
    ],
    [
      'http://127.0.0.1:9/s/x/v1/projects/p/locations/l/publishers/anthropic/models/claude:rawPredict',
      'anthropic',
    ],
  ])('%s → %s', (url, provider) => {
    expect(providerFromUrl(url)).toBe(provider);
  });

  it.each([
    undefined,
    42,
    '',
    'not a url',
    'https://api.openai.com.evil.example/v1',
    'http://127.0.0.1/v1/chat/completions',
  ])('%s → undefined', (url) => {
    expect(providerFromUrl(url)).toBeUndefined();
  });
});

describe('providers.json', () => {
  it('every provider of the list has its body reader here (a new provider fails this until added)', async () => {
    const { readFileSync } = await import('node:fs');
    const list = JSON.parse(readFileSync(new URL('../../../providers.json', import.meta.url), 'utf8')) as {
      providers: { name: string }[];
    };
    const { HTTP_FAILURE_READERS } = await import('./provider-of.ts');
    expect(Object.keys(HTTP_FAILURE_READERS).sort()).toEqual(
      list.providers.map((provider) => provider.name).sort(),
    );
  });
});
