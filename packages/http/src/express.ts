import { type FaultlineHttpOptions, problemBody, problemResponseFor } from './index.ts';

export type { FaultlineHttpOptions };

import { checkHttpOptions } from './option-keys.ts';

/** The parts of Express's request the handler reads (structural, so no Express types are needed). */
export interface ExpressRequestLike {
  readonly originalUrl?: string;
}

/** The parts of Express's response the handler uses. */
export interface ExpressResponseLike {
  readonly headersSent: boolean;
  status(code: number): unknown;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

export type ExpressErrorHandler = (
  error: unknown,
  request: ExpressRequestLike,
  response: ExpressResponseLike,
  next: (error?: unknown) => void,
) => void;

export type FaultlineExpressOptions = FaultlineHttpOptions;

/**
 * An Express 5 error-handling middleware (register it after your routes): a FaultlineError anywhere
 * on the error's cause chain is answered with RFC 9457 problem+json, its status and `Retry-After`;
 * every other error goes to `next(error)`, Express's own handling. Once the headers are sent (a
 * streamed answer that failed midway) no second response can be written: the error is passed to
 * `next`, and Express's default handler closes the connection, as Express documents.
 */
export function faultlineErrorHandler(options: FaultlineExpressOptions = {}): ExpressErrorHandler {
  checkHttpOptions('faultlineErrorHandler', options);
  return (error, request, response, next) => {
    if (response.headersSent) {
      next(error);
      return;
    }
    const answer = problemResponseFor(error, options, request.originalUrl);
    if (answer === undefined) {
      next(error);
      return;
    }
    response.status(answer.status);
    for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
    response.end(problemBody(answer));
  };
}
