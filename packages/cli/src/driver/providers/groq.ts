import { guardStream as guardGroqStream } from '@faultline/extract-groq';
import { stainlessChatDriver } from '../stainless-chat.ts';

/** groq-sdk: chat completions. */
export default stainlessChatDriver({
  model: 'llama-3.3-70b-versatile',
  // A canary: never real, and the reliability suite checks it reaches no output.
  credentials: ['gsk_faultlineCanary0000000000000000000000000000'],
  guardStream: guardGroqStream,
});
