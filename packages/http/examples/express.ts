import { withClassifiedErrors } from '@faultline/extract-openai';
import { faultlineErrorHandler } from '@faultline/http/express';
import express from 'express';
import type OpenAI from 'openai';

export function createApp(openai: OpenAI): express.Express {
  const app = express();
  app.use(express.json());

  app.post('/chat', async (request, response) => {
    const completion = await withClassifiedErrors(({ signal }) =>
      openai.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: String(request.body.prompt) }] },
        { signal },
      ),
    );
    response.json({ answer: completion.choices[0]?.message.content });
  });

  // After the routes: a classified failure becomes problem+json; any other error stays Express's.
  app.use(faultlineErrorHandler());
  return app;
}
