import { withClassifiedErrors } from '@faultline/extract-openai';
import { FaultlineError, formatPanel } from '@faultline/render';
import OpenAI from 'openai';

const client = new OpenAI({ maxRetries: 0 }); // faultline owns retries

try {
  const completion = await withClassifiedErrors(
    ({ signal }) =>
      client.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] },
        { signal },
      ),
    { model: 'gpt-4o-mini', retry: { maxAttempts: 3 } },
  );
  console.log(completion.choices[0]?.message.content);
} catch (error) {
  if (FaultlineError.isInstance(error)) {
    const report = error.toErrorReport();
    // report.category: 'transient' | 'ambiguous' | 'configuration' | 'capacity' | 'content' | 'unknown'
    // report.reason:   'rate_limit' | 'quota' | 'context_overflow' | 'model_not_found' | ...
    // report.nextStep: 'retry' | 'compress' | 'change_input' | 'fallback' | 'fix_configuration' | 'report_bug'
    console.error(formatPanel(report));
    // error.cause is the SDK's own error, untouched.
  }
  throw error;
}
