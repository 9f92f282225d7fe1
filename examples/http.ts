import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withClassifiedErrors } from '@faultline/extract-openai';
import { FaultlineError, httpResponseFor } from '@faultline/render';
import OpenAI from 'openai';

const client = new OpenAI({ maxRetries: 0 });

const server = createServer(async (_request, response) => {
  try {
    const completion = await withClassifiedErrors(
      ({ signal }) =>
        client.chat.completions.create(
          { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] },
          { signal },
        ),
      { model: 'gpt-4o-mini', retry: { maxAttempts: 2 } },
    );
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ answer: completion.choices[0]?.message.content }));
  } catch (error) {
    if (!FaultlineError.isInstance(error)) throw error;
    // RFC 9457 problem+json: the status faultline chose (502/503/429/…), Retry-After when a retry
    // can help, and no provider text, key or request body.
    const { status, headers, body } = httpResponseFor(error);
    response.writeHead(status, headers);
    response.end(JSON.stringify(body));
  }
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo; // 0: any free port
  console.log(`listening on http://127.0.0.1:${port}`);
});
