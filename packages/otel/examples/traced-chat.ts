import { withClassifiedErrors } from '@faultline/extract-openai';
import { faultlineOnRetry, recordFailure } from '@faultline/otel';
import { trace } from '@opentelemetry/api';
import type OpenAI from 'openai';

const tracer = trace.getTracer('my-app');

export async function tracedChat(openai: OpenAI, prompt: string): Promise<string> {
  return tracer.startActiveSpan('chat gpt-4o-mini', async (span) => {
    try {
      const completion = await withClassifiedErrors(
        ({ signal }) =>
          openai.chat.completions.create(
            { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] },
            { signal },
          ),
        // Each retry becomes a span event and a sample of the retry-wait histogram.
        { model: 'gpt-4o-mini', retry: { maxAttempts: 3, baseDelayMs: 100, onRetry: faultlineOnRetry() } },
      );
      return completion.choices[0]?.message.content ?? '';
    } catch (error) {
      // error.type, an exception event, status ERROR, GenAI and faultline attributes, the failure counter.
      recordFailure(error);
      throw error;
    } finally {
      span.end();
    }
  });
}
