import { withClassifiedErrors } from '@faultline/extract-openai';
import { faultlineErrors } from '@faultline/http/hono';
import { Hono } from 'hono';
import type OpenAI from 'openai';

export function createApp(openai: OpenAI): Hono {
  const app = new Hono();
  // Before the routes: a classified failure becomes problem+json; any other error keeps Hono's answer.
  app.use(faultlineErrors());

  app.post('/chat', async (context) => {
    const { prompt } = await context.req.json<{ prompt: string }>();
    const completion = await withClassifiedErrors(({ signal }) =>
      openai.chat.completions.create(
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] },
        { signal },
      ),
    );
    return context.json({ answer: completion.choices[0]?.message.content });
  });
  return app;
}
