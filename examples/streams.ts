import Anthropic from '@anthropic-ai/sdk';
import { guardStream } from '@faultline/extract-anthropic';
import { FaultlineError, formatPanel } from '@faultline/render';

const client = new Anthropic({ maxRetries: 0 });
const request = {
  model: 'claude-sonnet-4-6',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'Hello' }],
};

// Iterate the stream under the guard …
const controller = new AbortController();
const stream = client.messages.stream(request, { signal: controller.signal });
try {
  for await (const event of guardStream(stream, {
    signal: controller.signal,
    idleTimeoutMs: 30_000,
  })) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
      process.stdout.write(event.delta.text);
    }
  }
} catch (error) {
  if (!FaultlineError.isInstance(error)) throw error; // your own abort, untouched
  // report.delivered: what reached you before the failure ({ chunks, characters }): resume or restart.
  console.error(formatPanel(error.toErrorReport()));
  process.exitCode = 1;
}

// … or await the SDK helper's own result under the guard (the idle timer and terminal check apply):
try {
  const message = await guardStream(client.messages.stream(request)).finalMessage();
  console.log(message.content);
} catch (error) {
  if (!FaultlineError.isInstance(error)) throw error;
  console.error(formatPanel(error.toErrorReport()));
  process.exitCode = 1;
}
