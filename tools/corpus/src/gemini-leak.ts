// No imports: the vitest config loads this file before any workspace package resolves.
/**
 * @google/generative-ai's generateContentStream returns `{ stream, response }`, and
 * @langchain/google-genai reads only `stream`: when a stream fails, the unread `response` promise
 * rejects ("Error reading from the stream", "Failed to parse stream") and nothing handles it. The
 * failure itself is classified through `stream`; the runner and its test tolerate that one
 * rejection (any other unhandled error still fails them).
 */
export function isGeminiResponseLeak(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /^\[GoogleGenerativeAI Error\]: (Error reading from the stream|Failed to parse stream)/.test(
    message,
  );
}
