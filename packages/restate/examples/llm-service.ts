import { withClassifiedErrors } from '@faultline/extract-openai';
import { faultlineAsTerminalError, faultlineRun } from '@faultline/restate';
import * as restate from '@restatedev/restate-sdk';
import type OpenAI from 'openai';

export function llmService(openai: OpenAI) {
  return restate.service({
    name: 'llm',
    handlers: {
      chat: async (ctx: restate.Context, prompt: string): Promise<string> =>
        // A transient failure is retried after the provider's Retry-After; anything else ends the
        // invocation at once, with the report in the terminal error's metadata.
        faultlineRun(
          ctx,
          'chat',
          async () => {
            // Restate retries the run: faultline's own retries off, or the attempts multiply.
            const completion = await withClassifiedErrors(
              ({ signal }) =>
                openai.chat.completions.create(
                  { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] },
                  { signal },
                ),
              { retry: false },
            );
            return completion.choices[0]?.message.content ?? '';
          },
          { run: { maxRetryAttempts: 5 } },
        ),
    },
    // The floor: a permanent faultline failure thrown outside ctx.run is not retried either.
    options: { asTerminalError: faultlineAsTerminalError },
  });
}

export type LlmService = ReturnType<typeof llmService>;
