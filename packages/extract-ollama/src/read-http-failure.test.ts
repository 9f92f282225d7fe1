import { classify } from '@faultline/classify';
import { httpReaderCheck } from '@faultline/test-fixtures/http-reader-check';
import { describe, expect, it } from 'vitest';
import { readHttpFailure } from './index.ts';

httpReaderCheck({ provider: 'ollama', read: readHttpFailure });

describe('readHttpFailure beyond the recorded answers', () => {
  it("reads a proxy's OpenAI-style error object at the native path", () => {
    const metadata = readHttpFailure({
      status: 404,
      body: '{"error":{"message":"model \\"llama3.2\\" not found, try pulling it first","type":"api_error","param":null,"code":null}}',
    });
    expect(metadata).toMatchObject({ providerType: 'api_error', statusCode: 404 });
    expect(classify(metadata).reason).toBe('model_not_found');
  });

  it('reads an {"error"} line without a status as a stream event', () => {
    const metadata = readHttpFailure({
      status: undefined,
      body: '{"error":"the input length exceeds the context length"}',
    });
    expect(metadata.origin).toBe('stream_event');
    expect(classify(metadata).reason).toBe('context_overflow');
  });
});
