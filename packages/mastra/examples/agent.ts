import { anthropic } from '@ai-sdk/anthropic';
import { openai } from '@ai-sdk/openai';
import { classifyMastraError, faultlineModels } from '@faultline/mastra';
import { Agent } from '@mastra/core/agent';

// faultline decides how often each model is asked (faultlineModels sets Mastra's own retries to 0)
// and what moves on to the backup: a spent quota at once, a rate limit after its retries, also when
// it arrives as an error event inside a 200 stream.
const agent = new Agent({
  id: 'assistant',
  name: 'Assistant',
  instructions: 'Answer in one sentence.',
  model: faultlineModels([openai('gpt-4o-mini'), anthropic('claude-sonnet-4-5')]),
});

try {
  const result = await agent.generate('What is the capital of France?');
  console.log(result.text);
} catch (error) {
  const report = classifyMastraError(error).toErrorReport();
  console.error(`${report.reason} (${report.category}): next step ${report.nextStep}`);
  process.exitCode = 1;
}
