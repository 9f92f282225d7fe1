import type { Scenario } from '@faultline/test-fixtures';
import { type LoopbackServer, startLoopbackServer } from '@faultline/test-fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyAiSdkError } from './classify-ai-sdk-error.ts';
import { MAJORS } from './test-support.ts';

// OpenAI-compatible servers answer errors in their own shapes, without OpenAI's `error` member.
// The openai SDK (7) keeps such a body whole as the error; the AI SDK path reads it the same way.
let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ protocol: 'http1' });
});
afterAll(async () => {
  await server?.close();
});

const answer = (status: number, body: unknown): Pick<Scenario, 'response'> => ({
  response: {
    kind: 'http',
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  },
});

const cases = [
  {
    what: "Cloudflare's `errors` list",
    scenario: () =>
      answer(404, {
        result: null,
        success: false,
        errors: [{ code: 3042, message: 'The model name is invalid' }],
        messages: [],
      }),
    reason: 'model_not_found',
  },
  {
    what: "a FastAPI server's `detail`",
    scenario: () => answer(400, { detail: 'Model not found, uid: qwen1.5-chat-0000' }),
    reason: 'model_not_found',
  },
  {
    what: 'a body holding only `message` and `code`',
    scenario: () =>
      answer(429, { code: 1113, message: 'Insufficient balance or no resource package. Please recharge.' }),
    reason: 'billing',
  },
] as const;

for (const major of MAJORS) {
  describe(`${major.alias}: an OpenAI-compatible server's own error body`, () => {
    for (const entry of cases) {
      it(`${entry.what}: read for its words, not as a body without a message`, async () => {
        const model = major.models.openai(server.baseUrlFor(entry.scenario()));
        const error = await major.ai.generateText({ model, prompt: 'hi', maxRetries: 0 }).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect((error as Error | undefined)?.name).toBe('AI_APICallError');
        const report = classifyAiSdkError(error, { provider: model.provider }).toErrorReport();
        expect(report.reason).toBe(entry.reason);
      });
    }
  });
}
