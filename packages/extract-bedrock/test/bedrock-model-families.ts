/**
 * What each model family sends through InvokeModel and InvokeModelWithResponseStream: the JSON
 * inside each stream chunk's `bytes`, and a whole InvokeModel body. The shapes follow the model
 * parameter pages of the Bedrock user guide (model-parameters-anthropic-claude-messages,
 * -titan-text, -meta, -mistral, -mistral-large-2407, -cohere-command, -cohere-command-r-plus,
 * nova "complete request schema"), AWS's code examples (awsdocs/aws-doc-sdk-examples,
 * python/example_code/bedrock-runtime/models/<family>/invoke_model_with_response_stream.py, which
 * read `outputText`, `generation`, `outputs[0].text`, `generations[0].text`, `delta.text`), and
 * the final chunk's `amazon-bedrock-invocationMetrics` that Bedrock adds for every family.
 * Reconstructed from those documents, not recorded from the live service.
 */

/** What Bedrock adds to the last chunk of every streamed answer. */
export const INVOCATION_METRICS = {
  'amazon-bedrock-invocationMetrics': {
    inputTokenCount: 12,
    outputTokenCount: 4,
    invocationLatency: 431,
    firstByteLatency: 270,
  },
} as const;

export type ChunkJson = Readonly<Record<string, unknown>>;

export interface ModelFamily {
  readonly name: string;
  readonly modelId: string;
  /** The request body the family expects (the loopback server ignores it). */
  readonly request: Readonly<Record<string, unknown>>;
  /** The chunks of a whole streamed answer, in order; the family's end and the metrics come last. */
  readonly stream: readonly ChunkJson[];
  /** How many chunks come before the first one that ends the answer. */
  readonly openChunks: number;
  /** The answer text those open chunks carry. */
  readonly openText: string;
  /** A whole InvokeModel response body. */
  readonly body: string;
}

const PROMPT = 'Say hello.';

export const MODEL_FAMILIES: readonly ModelFamily[] = [
  {
    name: 'Anthropic Claude (Messages)',
    modelId: 'anthropic.claude-3-haiku-20240307-v1:0',
    request: {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 64,
      messages: [{ role: 'user', content: PROMPT }],
    },
    stream: [
      {
        type: 'message_start',
        message: {
          id: 'msg_bdrk_01A6sahWac4XVTR9sX3rgvsZ',
          type: 'message',
          role: 'assistant',
          model: 'claude-3-haiku-20240307',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 12, output_tokens: 1 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ', world' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 4 },
      },
      { type: 'message_stop', ...INVOCATION_METRICS },
    ],
    openChunks: 6,
    openText: 'Hello, world',
    body: JSON.stringify({
      id: 'msg_bdrk_01A6sahWac4XVTR9sX3rgvsZ',
      type: 'message',
      role: 'assistant',
      model: 'claude-3-haiku-20240307',
      content: [{ type: 'text', text: 'Hello, world' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 4 },
    }),
  },
  {
    name: 'Anthropic Claude (Text Completions)',
    modelId: 'anthropic.claude-v2:1',
    request: { prompt: `\n\nHuman: ${PROMPT}\n\nAssistant:`, max_tokens_to_sample: 64 },
    stream: [
      { completion: ' Hello', stop_reason: null, stop: null },
      { completion: ', world', stop_reason: null, stop: null },
      { completion: '', stop_reason: 'stop_sequence', stop: '\n\nHuman:', ...INVOCATION_METRICS },
    ],
    openChunks: 2,
    openText: ' Hello, world',
    body: JSON.stringify({
      type: 'completion',
      completion: ' Hello, world',
      stop_reason: 'stop_sequence',
      stop: '\n\nHuman:',
    }),
  },
  {
    name: 'Amazon Titan Text',
    modelId: 'amazon.titan-text-express-v1',
    request: { inputText: PROMPT, textGenerationConfig: { maxTokenCount: 64 } },
    stream: [
      {
        outputText: 'Hello',
        index: 0,
        totalOutputTextTokenCount: null,
        completionReason: null,
        inputTextTokenCount: 5,
      },
      {
        outputText: ', wor',
        index: 0,
        totalOutputTextTokenCount: null,
        completionReason: null,
        inputTextTokenCount: null,
      },
      {
        outputText: 'ld',
        index: 0,
        totalOutputTextTokenCount: 4,
        completionReason: 'FINISH',
        inputTextTokenCount: null,
        ...INVOCATION_METRICS,
      },
    ],
    openChunks: 2,
    openText: 'Hello, wor',
    body: JSON.stringify({
      inputTextTokenCount: 5,
      results: [{ tokenCount: 4, outputText: 'Hello, world', completionReason: 'FINISH' }],
    }),
  },
  {
    name: 'Meta Llama',
    modelId: 'meta.llama3-8b-instruct-v1:0',
    request: { prompt: PROMPT, max_gen_len: 64 },
    stream: [
      { generation: 'Hello', prompt_token_count: 12, generation_token_count: 1, stop_reason: null },
      { generation: ', world', prompt_token_count: null, generation_token_count: 3, stop_reason: null },
      {
        generation: '',
        prompt_token_count: null,
        generation_token_count: 4,
        stop_reason: 'stop',
        ...INVOCATION_METRICS,
      },
    ],
    openChunks: 2,
    openText: 'Hello, world',
    body: JSON.stringify({
      generation: 'Hello, world',
      prompt_token_count: 12,
      generation_token_count: 4,
      stop_reason: 'stop',
    }),
  },
  {
    name: 'Mistral (text completion)',
    modelId: 'mistral.mistral-7b-instruct-v0:2',
    request: { prompt: `<s>[INST] ${PROMPT} [/INST]`, max_tokens: 64 },
    stream: [
      { outputs: [{ text: 'Hello', stop_reason: null }] },
      { outputs: [{ text: ', world', stop_reason: null }] },
      { outputs: [{ text: '', stop_reason: 'stop' }], ...INVOCATION_METRICS },
    ],
    openChunks: 2,
    openText: 'Hello, world',
    body: JSON.stringify({ outputs: [{ text: 'Hello, world', stop_reason: 'stop' }] }),
  },
  {
    name: 'Mistral Large 2 (chat completion)',
    modelId: 'mistral.mistral-large-2407-v1:0',
    request: { messages: [{ role: 'user', content: PROMPT }], max_tokens: 64 },
    stream: [
      {
        id: 'b0098812-0ad9-42da-9f17-a5e2f554eb6b',
        object: 'chat.completion.chunk',
        created: 1732582566,
        model: 'mistral-large-2407',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, stop_reason: null }],
      },
      {
        id: 'b0098812-0ad9-42da-9f17-a5e2f554eb6b',
        object: 'chat.completion.chunk',
        created: 1732582566,
        model: 'mistral-large-2407',
        choices: [{ index: 0, message: { role: null, content: ', world' }, stop_reason: null }],
      },
      {
        id: 'b0098812-0ad9-42da-9f17-a5e2f554eb6b',
        object: 'chat.completion.chunk',
        created: 1732582566,
        model: 'mistral-large-2407',
        choices: [{ index: 0, message: { role: null, content: '' }, stop_reason: 'stop' }],
        ...INVOCATION_METRICS,
      },
    ],
    openChunks: 2,
    openText: 'Hello, world',
    body: JSON.stringify({
      id: 'b0098812-0ad9-42da-9f17-a5e2f554eb6b',
      object: 'chat.completion',
      created: 1732582566,
      model: 'mistral-large-2407',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello, world' }, stop_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 },
    }),
  },
  {
    name: 'Cohere Command R',
    modelId: 'cohere.command-r-v1:0',
    request: { message: PROMPT, max_tokens: 64 },
    stream: [
      {
        is_finished: false,
        event_type: 'stream-start',
        generation_id: 'a5f2bd5a-5e3b-4ec1-bd4a-6f1f7d1d1c3e',
      },
      { is_finished: false, event_type: 'text-generation', text: 'Hello' },
      { is_finished: false, event_type: 'text-generation', text: ', world' },
      {
        is_finished: true,
        event_type: 'stream-end',
        finish_reason: 'COMPLETE',
        response: {
          response_id: '0e4d3ac2-9f6e-4c0e-9b0e-6a1f0b2f7c1d',
          text: 'Hello, world',
          generation_id: 'a5f2bd5a-5e3b-4ec1-bd4a-6f1f7d1d1c3e',
          finish_reason: 'COMPLETE',
        },
        ...INVOCATION_METRICS,
      },
    ],
    openChunks: 3,
    openText: 'Hello, world',
    body: JSON.stringify({
      response_id: '0e4d3ac2-9f6e-4c0e-9b0e-6a1f0b2f7c1d',
      text: 'Hello, world',
      generation_id: 'a5f2bd5a-5e3b-4ec1-bd4a-6f1f7d1d1c3e',
      chat_history: [
        { role: 'USER', message: PROMPT },
        { role: 'CHATBOT', message: 'Hello, world' },
      ],
      finish_reason: 'COMPLETE',
    }),
  },
  {
    name: 'Cohere Command',
    modelId: 'cohere.command-text-v14',
    request: { prompt: PROMPT, max_tokens: 64, stream: true },
    stream: [
      { generations: [{ id: 'g1', text: 'Hello', index: 0, is_finished: false }] },
      { generations: [{ id: 'g1', text: ', world', index: 0, is_finished: false }] },
      {
        generations: [{ id: 'g1', text: '', index: 0, is_finished: true, finish_reason: 'COMPLETE' }],
        id: '7c3b8f0e-2d4a-4f6b-9a8c-1e2d3f4a5b6c',
        prompt: PROMPT,
        ...INVOCATION_METRICS,
      },
    ],
    openChunks: 2,
    openText: 'Hello, world',
    body: JSON.stringify({
      generations: [{ finish_reason: 'COMPLETE', id: 'g1', text: 'Hello, world' }],
      id: '7c3b8f0e-2d4a-4f6b-9a8c-1e2d3f4a5b6c',
      prompt: PROMPT,
    }),
  },
  {
    name: 'Amazon Nova',
    modelId: 'amazon.nova-lite-v1:0',
    request: {
      schemaVersion: 'messages-v1',
      messages: [{ role: 'user', content: [{ text: PROMPT }] }],
      inferenceConfig: { maxTokens: 64 },
    },
    stream: [
      { messageStart: { role: 'assistant' } },
      { contentBlockDelta: { delta: { text: 'Hello' }, contentBlockIndex: 0 } },
      { contentBlockDelta: { delta: { text: ', world' }, contentBlockIndex: 0 } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { messageStop: { stopReason: 'end_turn' } },
      {
        metadata: { usage: { inputTokens: 5, outputTokens: 4 }, metrics: {}, trace: {} },
        ...INVOCATION_METRICS,
      },
    ],
    openChunks: 4,
    openText: 'Hello, world',
    body: JSON.stringify({
      output: { message: { content: [{ text: 'Hello, world' }], role: 'assistant' } },
      stopReason: 'end_turn',
      usage: { inputTokens: 5, outputTokens: 4, totalTokens: 9 },
    }),
  },
];

/** The same chunk without Bedrock's invocation metrics (the family's own end marker stays). */
export function withoutMetrics(chunk: ChunkJson): ChunkJson {
  const { 'amazon-bedrock-invocationMetrics': _metrics, ...rest } = chunk;
  return rest;
}
