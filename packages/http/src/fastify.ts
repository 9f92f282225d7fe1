import { type FaultlineHttpOptions, problemBody, problemResponseFor } from './index.ts';

export type { FaultlineHttpOptions };

import { checkHttpOptions } from './option-keys.ts';

/** The parts of Fastify's request the handler reads (structural, so no Fastify types are needed). */
export interface FastifyRequestLike {
  readonly url?: string;
}

/** The parts of Fastify's reply the handler uses. */
export interface FastifyReplyLike {
  readonly sent: boolean;
  readonly raw: { readonly headersSent: boolean };
  code(statusCode: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  send(payload: string): unknown;
}

export type FastifyErrorHandler = (
  error: unknown,
  request: FastifyRequestLike,
  reply: FastifyReplyLike,
) => unknown;

export type FaultlineFastifyOptions = FaultlineHttpOptions;

/**
 * A Fastify 5 error handler (`app.setErrorHandler(faultlineErrorHandler())`): a FaultlineError
 * anywhere on the error's cause chain is answered with RFC 9457 problem+json, its status and
 * `Retry-After`. Any other error is re-thrown, which Fastify hands to the parent error handler
 * (its default one at the root), so its own handling stays. Once the reply is sent or its headers
 * are out, the error is re-thrown as well: Fastify then destroys the response instead of writing a second one.
 */
export function faultlineErrorHandler(options: FaultlineFastifyOptions = {}): FastifyErrorHandler {
  checkHttpOptions('faultlineErrorHandler', options);
  return (error, request, reply) => {
    if (reply.sent || reply.raw.headersSent) throw error;
    const answer = problemResponseFor(error, options, request.url);
    if (answer === undefined) throw error;
    reply.code(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
    return reply.send(problemBody(answer));
  };
}
