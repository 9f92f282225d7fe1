import { withClassifiedErrors } from '@faultline/extract-openai';
import { type ErrorReport, FaultlineError, formatPanel } from '@faultline/render';
import OpenAI from 'openai';

const client = new OpenAI({ maxRetries: 0 }); // faultline owns retries

// What your program does for each next step a report can carry (tsc fails if one is missing).
const whatToDo: Record<ErrorReport['nextStep'], string> = {
  retry: 'retries are spent: try again after report.retryAfterSeconds',
  retry_if_idempotent: 'the request may have reached the model: repeat it only if that is safe',
  compress: 'the conversation is over the context window: shorten it',
  change_input: 'the provider refused this input: change it',
  fallback: 'this model or account cannot serve now: use another',
  fix_configuration: 'a key, model name or base URL is wrong: a person must fix it',
  report_bug: 'not classified: report it with the panel above',
  stop: 'the call was cancelled: nothing to do',
};

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
  if (!FaultlineError.isInstance(error)) throw error; // your own abort, untouched
  const report = error.toErrorReport(); // plain, versioned JSON: no key, no prompt, no raw body
  console.error(formatPanel(report)); // reason, category, retried or not, when, what to do
  console.error(whatToDo[report.nextStep]);
  process.exitCode = 1; // error.cause is the SDK's own error, untouched
}
