import type {
  ErrorCategory,
  ErrorDomain,
  FailureReason,
  NextStep,
  RecoveryHints,
  UserActionKind,
} from './schemas.ts';

/** One row of docs/contributing/design.md's taxonomy table. */
export interface TaxonomyRow {
  readonly category: ErrorCategory;
  readonly retryable: boolean;
  readonly userAction: UserActionKind;
  readonly recovery: RecoveryHints;
  readonly domain: ErrorDomain;
  readonly httpStatus: number;
  readonly nextStep: NextStep;
  /** The advice shown to a person when nothing more specific is known. */
  readonly advice: string;
  /**
   * DESIGN's "next candidate in a fallback chain?": `yes` (a transient failure after this
   * candidate's retries; `interrupted` only before output was delivered, unless the caller opts in),
   * `larger_window` (only to a candidate whose context window is larger), `other_credential` (only
   * to a candidate with another credential or provider), `opt_in` (only when the caller asks), `no`.
   */
  readonly fallback: 'yes' | 'larger_window' | 'other_credential' | 'opt_in' | 'no';
}

/** A row as written: the recoveries that can help (`hints`), from which `recovery` is derived. */
type WrittenRow = Omit<TaxonomyRow, 'recovery'> & { readonly hints: ReadonlyArray<keyof RecoveryHints> };

/**
 * The recovery hints a report carries. `fallback` is what a fallback chain does with its defaults,
 * read from the row's fallback column: a row the chain leaves only when the caller opts in
 * (`opt_in`) or never leaves (`no`) never says fallback, whatever may help once the caller asks;
 * so an agent or a program acting on the hint does what the chain would do.
 */
function recoveryOf(row: WrittenRow): RecoveryHints {
  return {
    rotateCredential: row.hints.includes('rotateCredential'),
    fallback: row.hints.includes('fallback') && row.fallback !== 'opt_in' && row.fallback !== 'no',
    compress: row.hints.includes('compress'),
  };
}

const ROWS: Readonly<Record<FailureReason, WrittenRow>> = {
  rate_limit: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    hints: ['rotateCredential', 'fallback'],
    domain: 'runtime',
    httpStatus: 429,
    nextStep: 'retry',
    advice: 'The provider is rate limiting this key. Wait for the Retry-After period, then retry.',
    fallback: 'yes',
  },
  overloaded: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    hints: ['fallback'],
    domain: 'runtime',
    httpStatus: 503,
    nextStep: 'retry',
    advice: 'The provider is overloaded. Retry shortly, or fall back to another model or provider.',
    fallback: 'yes',
  },
  server_error: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    hints: [],
    domain: 'runtime',
    httpStatus: 503,
    nextStep: 'retry',
    advice: 'The provider failed on its side. Retry with backoff.',
    fallback: 'yes',
  },
  timeout: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    hints: [],
    domain: 'runtime',
    httpStatus: 503,
    nextStep: 'retry',
    advice: 'The provider did not answer in time. Retry, perhaps with a longer timeout.',
    fallback: 'yes',
  },
  connection: {
    category: 'transient',
    retryable: true,
    userAction: 'wait_and_retry',
    hints: [],
    domain: 'runtime',
    httpStatus: 503,
    nextStep: 'retry',
    advice: 'The connection could not be opened before the request was sent. Retry with backoff.',
    fallback: 'yes',
  },
  interrupted: {
    category: 'ambiguous',
    retryable: false,
    userAction: 'wait_and_retry',
    hints: [],
    domain: 'runtime',
    httpStatus: 502,
    // Becomes `retry` when the caller says the call is idempotent (classificationFor).
    nextStep: 'retry_if_idempotent',
    advice:
      'The connection dropped after the request was sent; the provider may have processed it. Retry only if the call is idempotent.',
    fallback: 'yes',
  },
  auth: {
    category: 'configuration',
    retryable: false,
    userAction: 'check_credentials',
    hints: ['rotateCredential'],
    domain: 'config',
    httpStatus: 500,
    nextStep: 'fix_configuration',
    advice: 'The API key was rejected. Check that it is set, valid and meant for this provider.',
    fallback: 'other_credential',
  },
  permission: {
    category: 'configuration',
    retryable: false,
    userAction: 'check_credentials',
    hints: ['fallback'],
    domain: 'config',
    httpStatus: 500,
    nextStep: 'fallback',
    advice: 'This key is not allowed to do this. Check its permissions, project and region.',
    fallback: 'other_credential',
  },
  model_not_found: {
    category: 'configuration',
    retryable: false,
    userAction: 'change_model',
    hints: ['fallback'],
    domain: 'config',
    httpStatus: 500,
    nextStep: 'fallback',
    advice: 'The model does not exist or this key cannot use it. Check the model name.',
    fallback: 'yes',
  },
  not_found: {
    category: 'configuration',
    retryable: false,
    userAction: 'check_configuration',
    hints: [],
    domain: 'config',
    httpStatus: 500,
    nextStep: 'fix_configuration',
    advice: 'The endpoint was not found. Check the base URL, API version and any proxy in between.',
    fallback: 'no',
  },
  endpoint: {
    category: 'configuration',
    retryable: false,
    userAction: 'check_configuration',
    hints: [],
    domain: 'config',
    httpStatus: 500,
    nextStep: 'fix_configuration',
    advice: 'The provider host could not be reached by name. Check the base URL and region.',
    fallback: 'no',
  },
  quota: {
    category: 'capacity',
    retryable: false,
    userAction: 'check_billing',
    hints: ['fallback'],
    domain: 'config',
    httpStatus: 500,
    nextStep: 'fallback',
    advice: 'The account has used up its allowance. Raise the quota or plan, or fall back.',
    fallback: 'yes',
  },
  billing: {
    category: 'capacity',
    retryable: false,
    userAction: 'check_billing',
    hints: ['rotateCredential', 'fallback'],
    domain: 'config',
    httpStatus: 500,
    nextStep: 'fallback',
    advice: 'The account cannot pay for this request. Add credit or fix the billing details.',
    fallback: 'yes',
  },
  context_overflow: {
    category: 'content',
    retryable: false,
    userAction: 'change_input',
    hints: ['compress'],
    domain: 'input',
    httpStatus: 422,
    nextStep: 'compress',
    advice: 'The input is longer than the model accepts. Shorten or compress it, or lower max tokens.',
    fallback: 'larger_window',
  },
  content_policy: {
    category: 'content',
    retryable: false,
    userAction: 'change_input',
    hints: ['fallback'],
    domain: 'input',
    httpStatus: 422,
    nextStep: 'change_input',
    advice: "The provider's safety system blocked this input or output. Change the input.",
    fallback: 'opt_in',
  },
  invalid_request: {
    category: 'content',
    retryable: false,
    userAction: 'change_input',
    hints: [],
    domain: 'input',
    httpStatus: 422,
    nextStep: 'change_input',
    advice: 'The provider rejected the request as invalid. Fix the parameters it names.',
    fallback: 'no',
  },
  unsupported_media: {
    category: 'content',
    retryable: false,
    userAction: 'change_input',
    hints: [],
    domain: 'input',
    httpStatus: 422,
    nextStep: 'change_input',
    advice: 'The provider does not accept this media type or format.',
    fallback: 'no',
  },
  local_bug: {
    category: 'unknown',
    retryable: false,
    userAction: 'contact_support',
    hints: [],
    domain: 'runtime',
    httpStatus: 500,
    nextStep: 'report_bug',
    advice:
      'A programming error was thrown before or after the provider call. Report it with the stack trace.',
    fallback: 'no',
  },
  cancelled: {
    category: 'cancelled',
    retryable: false,
    userAction: 'none',
    hints: [],
    domain: 'runtime',
    // nginx's "client closed request": the caller went away, nothing failed on the provider's side.
    httpStatus: 499,
    nextStep: 'stop',
    advice: 'The caller cancelled the call (its own AbortSignal fired). Nothing failed; nothing to retry.',
    fallback: 'no',
  },
  unknown: {
    category: 'unknown',
    retryable: false,
    userAction: 'unknown',
    hints: [],
    domain: 'runtime',
    httpStatus: 500,
    nextStep: 'report_bug',
    advice: 'The failure could not be classified. It is not retried; report it so it can be.',
    fallback: 'no',
  },
};

/** The taxonomy table: the contract every package and test shares (docs/contributing/design.md). */
export const TAXONOMY: Readonly<Record<FailureReason, TaxonomyRow>> = Object.freeze(
  Object.fromEntries(
    Object.entries(ROWS).map(([reason, written]) => {
      const { hints: _hints, ...row } = written;
      return [reason, { ...row, recovery: recoveryOf(written) }];
    }),
  ) as Record<FailureReason, TaxonomyRow>,
);
