import { withClassifiedErrors } from '@faultline/extract-openai';
import { faultlineErrorSerializer } from '@faultline/pino';
import type OpenAI from 'openai';
import pino from 'pino';

export function createLogger(destination?: pino.DestinationStream): pino.Logger {
  // A faultline failure is logged as its report; any other error as pino's own serializer writes it.
  const options = { serializers: { err: faultlineErrorSerializer(pino.stdSerializers.err) } };
  return destination === undefined ? pino(options) : pino(options, destination);
}

export async function chat(openai: OpenAI, logger: pino.Logger, prompt: string): Promise<string | undefined> {
  try {
    const completion = await withClassifiedErrors(({ signal }) =>
      openai.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] },
        { signal },
      ),
    );
    return completion.choices[0]?.message.content ?? '';
  } catch (error) {
    logger.error({ err: error }, 'model call failed');
    return undefined;
  }
}
