import {
  type Disclosure,
  type FaultlineError,
  type HttpErrorResponse,
  httpResponseFor,
  type ProblemDetailsOptions,
} from '@faultline/render';
import { nearestFaultlineError } from '@faultline/render/toolkit';
import { checkHttpOptions } from './option-keys.ts';

/**
 * How much of the provider's own words a response may carry: `safe` (a message per reason, no
 * provider text), `scrubbed` (the provider's words without account ids), `full` (secrets still
 * scrubbed). render owns the levels and their wording; this package only passes the choice on.
 */
export type { Disclosure } from '@faultline/render';

export interface FaultlineHttpOptions {
  /** What the body may say of the provider's words. Default `'safe'`: an app's clients never see provider text. */
  readonly disclosure?: Disclosure | undefined;
  /** Overrides the problem `type` prefix, e.g. `https://docs.example.com/errors/`. */
  readonly typePrefix?: string | undefined;
  /** Set the problem's `instance` to the request path. Default false. */
  readonly instanceFromPath?: boolean | undefined;
}

/**
 * The nearest FaultlineError on the cause chain of `value` (the value itself first), whichever copy
 * of faultline built it (the `Symbol.for` marker, never `instanceof`). Total.
 */
export function findFaultlineError(value: unknown): FaultlineError | undefined {
  return nearestFaultlineError(value) as FaultlineError | undefined;
}

/**
 * The problem+json answer (status, headers with `Retry-After` when the wait is known, body) for a
 * thrown value that has a FaultlineError on its cause chain, or `undefined` for any other error,
 * which the framework's own handler should answer. render builds the body; nothing is re-rendered here.
 */
export function problemResponseFor(
  thrown: unknown,
  options: FaultlineHttpOptions = {},
  path?: string,
): HttpErrorResponse | undefined {
  checkHttpOptions('problemResponseFor', options);
  const error = findFaultlineError(thrown);
  if (error === undefined) return undefined;
  // `disclosure` is passed through to render, which decides what each level shows.
  const renderOptions: ProblemDetailsOptions = {
    disclosure: options.disclosure ?? 'safe',
    typePrefix: options.typePrefix,
    instance: options.instanceFromPath === true ? path : undefined,
  };
  return httpResponseFor(error, renderOptions);
}

/** The body as sent: problem+json text. */
export function problemBody(response: HttpErrorResponse): string {
  return JSON.stringify(response.body);
}
