// Complete streamed answers in each provider's shape, as its SDK yields them: `count` chunks,
// ending with the provider's terminal event. The words are short, as real token deltas are.

const WORDS = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog', '.'];
const word = (index: number) => WORDS[index % WORDS.length]!;
const CREATED = 1_763_683_200;

/** A `chat.completion.chunk` as the openai SDK yields it (platform.openai.com/docs/api-reference/chat-streaming). */
export function openaiChunks(count: number): object[] {
  const chunk = (delta: object, finishReason: string | null) => ({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: CREATED,
    model: 'gpt-4o-mini-2024-07-18',
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  return Array.from({ length: count }, (_, index) => {
    if (index === 0) return chunk({ role: 'assistant', content: '', refusal: null }, null);
    if (index === count - 1) return chunk({}, 'stop');
    return chunk({ content: word(index) }, null);
  });
}

/** Messages stream events (docs.anthropic.com/en/api/messages-streaming), `message_stop` last. */
export function anthropicEvents(count: number): object[] {
  const head = [
    {
      type: 'message_start',
      message: {
        id: 'msg_bench',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ];
  const tail = [
    { type: 'content_block_stop', index: 0 },
    {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: count },
    },
    { type: 'message_stop' },
  ];
  const deltas = Array.from({ length: count - head.length - tail.length }, (_, index) => ({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: word(index) },
  }));
  return [...head, ...deltas, ...tail];
}

/** `generateContentStream` chunks (ai.google.dev/api/generate-content), a `finishReason` last. */
export function geminiChunks(count: number): object[] {
  return Array.from({ length: count }, (_, index) => {
    const last = index === count - 1;
    return {
      candidates: [
        {
          content: { parts: [{ text: word(index) }], role: 'model' },
          index: 0,
          ...(last ? { finishReason: 'STOP' } : {}),
        },
      ],
      usageMetadata: last
        ? { promptTokenCount: 12, candidatesTokenCount: count, totalTokenCount: count + 12 }
        : { promptTokenCount: 12, totalTokenCount: 12 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'bench-response',
    };
  });
}

/** ConverseStream events (docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html). */
export function bedrockEvents(count: number): object[] {
  const head = [{ messageStart: { role: 'assistant' } }];
  const tail = [
    { contentBlockStop: { contentBlockIndex: 0 } },
    { messageStop: { stopReason: 'end_turn' } },
    {
      metadata: {
        usage: { inputTokens: 12, outputTokens: count, totalTokens: count + 12 },
        metrics: { latencyMs: 640 },
      },
    },
  ];
  const deltas = Array.from({ length: count - head.length - tail.length }, (_, index) => ({
    contentBlockDelta: { delta: { text: word(index) }, contentBlockIndex: 0 },
  }));
  return [...head, ...deltas, ...tail];
}

/** `await mistral.chat.stream(...)` events: `{ data: chunk }`, the SDK's camelCase `finishReason`. */
export function mistralEvents(count: number): object[] {
  return Array.from({ length: count }, (_, index) => {
    const last = index === count - 1;
    return {
      data: {
        id: 'cmpl-bench',
        object: 'chat.completion.chunk',
        created: CREATED,
        model: 'mistral-small-latest',
        choices: [
          {
            index: 0,
            delta: index === 0 ? { role: 'assistant', content: '' } : { content: last ? '' : word(index) },
            finishReason: last ? 'stop' : null,
          },
        ],
        ...(last ? { usage: { promptTokens: 12, completionTokens: count, totalTokens: count + 12 } } : {}),
      },
    };
  });
}

/** groq-sdk chat chunks (console.groq.com/docs/api-reference), `x_groq` on the first and last. */
export function groqChunks(count: number): object[] {
  return Array.from({ length: count }, (_, index) => {
    const first = index === 0;
    const last = index === count - 1;
    return {
      id: 'chatcmpl-bench',
      object: 'chat.completion.chunk',
      created: CREATED,
      model: 'llama-3.3-70b-versatile',
      system_fingerprint: 'fp_bench',
      choices: [
        {
          index: 0,
          delta: first ? { role: 'assistant', content: '' } : last ? {} : { content: word(index) },
          logprobs: null,
          finish_reason: last ? 'stop' : null,
        },
      ],
      ...(first ? { x_groq: { id: 'req_bench' } } : {}),
      ...(last
        ? {
            x_groq: {
              id: 'req_bench',
              usage: { prompt_tokens: 12, completion_tokens: count, total_tokens: count + 12 },
            },
          }
        : {}),
    };
  });
}
