import { type FaultlineHttpOptions, problemBody, problemResponseFor } from './index.ts';

export type { FaultlineHttpOptions };

import { checkHttpOptions } from './option-keys.ts';

/** The parts of Hono's context the middleware uses (structural, so no Hono types are needed). */
export interface HonoContextLike {
  readonly error: unknown;
  readonly req: { readonly path: string };
  res: Response;
}

export type HonoMiddleware = (context: HonoContextLike, next: () => Promise<void>) => Promise<void>;

export type FaultlineHonoOptions = FaultlineHttpOptions;

/**
 * A Hono 4 middleware (`app.use(faultlineErrors())`, before your routes). Hono catches a route's
 * error, answers it with `app.onError` (its default handler unless you set one) and records it in
 * `c.error`; when that error has a FaultlineError on its cause chain this middleware replaces the
 * answer with RFC 9457 problem+json, its status and `Retry-After`. Every other error keeps the
 * answer Hono (or your `onError`) gave. A failure inside a streamed body happens after the
 * response left the router: Hono never sees it, and the runtime ends the connection.
 */
export function faultlineErrors(options: FaultlineHonoOptions = {}): HonoMiddleware {
  checkHttpOptions('faultlineErrors', options);
  return async (context, next) => {
    await next();
    if (context.error === undefined) return;
    const answer = problemResponseFor(context.error, options, context.req.path);
    if (answer === undefined) return;
    // Assigning `c.res` keeps headers earlier middleware set on the old answer (CORS, cookies) but
    // also its length: drop that, and set ours last so they win.
    const headers = new Headers(answer.headers);
    context.res = new Response(problemBody(answer), { status: answer.status, headers });
    context.res.headers.delete('content-length');
    for (const [name, value] of Object.entries(answer.headers)) context.res.headers.set(name, value);
  };
}
