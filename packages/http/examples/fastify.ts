import { withClassifiedErrors } from '@faultline/extract-openai';
import { faultlineErrorHandler } from '@faultline/http/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import type OpenAI from 'openai';

export function createApp(openai: OpenAI): FastifyInstance {
  const app = Fastify();
  // A classified failure becomes problem+json; any other error goes on to Fastify's own handler.
  app.setErrorHandler(faultlineErrorHandler());

  app.post<{ Body: { prompt: string } }>('/chat', async (request) => {
    const completion = await withClassifiedErrors(({ signal }) =>
      openai.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: request.body.prompt }] },
        { signal },
      ),
    );
    return { answer: completion.choices[0]?.message.content };
  });
  return app;
}
