import type { Scenario } from '@faultline/llm-mock';

/**
 * A successful OpenAI chat completion answering `content` (the OpenAI-compatible shape): the happy
 * path of an app under test, served by the loopback server like any recorded failure. Its
 * `expected` block is unused (nothing is classified); the schema asks for one.
 */
export function openaiChatCompletion(content: string, model = 'gpt-4o-mini'): Scenario {
  return {
    id: `openai/answer-${model}`,
    provider: 'openai',
    description: 'a chat completion that answers',
    source: 'https://platform.openai.com/docs/api-reference/chat/object',
    response: {
      kind: 'http',
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'chatcmpl-answer',
        object: 'chat.completion',
        created: 1763760000,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    },
    expected: {
      category: 'unknown',
      reason: 'unknown',
      retryable: false,
      userAction: 'unknown',
      httpStatus: 500,
    },
  } as Scenario;
}
