import { guardStream as guardOpenAIStream } from '@faultline/extract-openai';
import { stainlessChatDriver } from '../stainless-chat.ts';

/** openai: chat completions (every OpenAI-compatible `api` of the catalogue is called the same way). */
export default stainlessChatDriver({
  model: 'gpt-4o-mini',
  // A canary: never real, and the reliability suite checks it reaches no output.
  credentials: ['sk-proj-faultlineCanary0000000000000000000000'],
  guardStream: guardOpenAIStream,
});
