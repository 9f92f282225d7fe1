import { classify } from '@faultline/classify';
import { httpReaderCheck } from '@faultline/test-fixtures/http-reader-check';
import { describe, expect, it } from 'vitest';
import { readHttpFailure } from './index.ts';

// Any transport (the AI SDK's APICallError, LangChain, a raw fetch) hands faultline the response
// as { status, headers, body }: readHttpFailure must give every recorded HTTP failure the
// classification the client's own error gets, and stay total on hostile input (the check every
// extract-* package runs).
httpReaderCheck({ provider: 'cohere', read: readHttpFailure });

describe('readHttpFailure beyond the recorded answers', () => {
  it("reads Cohere's compatibility API's OpenAI-style error object", () => {
    const metadata = readHttpFailure({
      status: 429,
      body: '{"error":{"message":"You are past the per minute request limit, please wait and try again later.","type":"rate_limit_error","code":"rate_limit_exceeded"}}',
    });
    expect(metadata).toMatchObject({ providerType: 'rate_limit_error', providerCode: 'rate_limit_exceeded' });
    expect(classify(metadata).reason).toBe('rate_limit');
  });

  it("takes the request id from the body's id, else the trace header", () => {
    expect(
      readHttpFailure({ status: 500, body: '{"message":"x"}', headers: { 'x-debug-trace-id': 'trace-1' } })
        .requestId,
    ).toBe('trace-1');
    expect(readHttpFailure({ status: 500, body: '{"id":"req-1","message":"x"}' }).requestId).toBe('req-1');
  });
});
