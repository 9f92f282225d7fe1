import { RETRY_OPTION_KEYS, WITH_CLASSIFIED_ERRORS_OPTION_KEYS } from '@faultline/render/toolkit';
import { optionKeysSuite } from '@faultline/test-fixtures/option-keys-suite';
import { type WithClassifiedErrorsOptions, withClassifiedErrors } from './index.ts';

// The key table satisfies this adapter's options type, so an option added to the type and refused
// at the call fails the type check or the suite; the type refuses what the call refuses. When
// OpenRouter streams, add its guard here (guardStream, guardKeys, guardRefusesReadChunk), as every
// extract-* package's src/option-keys.test.ts does.
const CALL_KEYS = WITH_CLASSIFIED_ERRORS_OPTION_KEYS satisfies Record<
  keyof WithClassifiedErrorsOptions,
  true
>;
// @ts-expect-error: maxRetries is not an option (retry is)
const _misnamed: WithClassifiedErrorsOptions = { maxRetries: 3 };
// @ts-expect-error: maxAtempts is misspelt
const _misspelt: WithClassifiedErrorsOptions = { retry: { maxAtempts: 3 } };

optionKeysSuite({
  withClassifiedErrors: (fn, options) => withClassifiedErrors(fn, options),
  callKeys: CALL_KEYS,
  retryKeys: RETRY_OPTION_KEYS,
});
