import { classifyAgentsError, faultlineModelProvider, faultlineRetryPolicy } from '@faultline/openai-agents';
import { Agent, OpenAIProvider, Runner } from '@openai/agents';
import OpenAI from 'openai';

// The runner's retry policy is the one retry loop: the OpenAI client's own retries are off (they
// would replay a spent quota before the policy is asked).
const openAIClient = new OpenAI({ maxRetries: 0 });
const runner = new Runner({ modelProvider: faultlineModelProvider(new OpenAIProvider({ openAIClient })) });
const agent = new Agent({
  name: 'Assistant',
  instructions: 'Answer in one sentence.',
  model: 'gpt-4o-mini',
  modelSettings: { retry: { maxRetries: 3, policy: faultlineRetryPolicy() } },
});

try {
  const result = await runner.run(agent, 'What is the capital of France?');
  console.log(result.finalOutput);
} catch (error) {
  const report = classifyAgentsError(error).toErrorReport();
  const retryable = report.retryable ? 'retryable' : 'not retryable';
  console.error(`${report.reason} (${report.category}, ${retryable}): next step ${report.nextStep}`);
  process.exitCode = 1;
}
