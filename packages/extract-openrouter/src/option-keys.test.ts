import {
  GUARD_STREAM_OPTION_KEYS,
  RETRY_OPTION_KEYS,
  WITH_CLASSIFIED_ERRORS_OPTION_KEYS,
} from '@faultline/render/toolkit';
import { optionKeysSuite } from '@faultline/test-fixtures/option-keys-suite';
import {
  type GuardStreamOptions,
  guardStream,
  type WithClassifiedErrorsOptions,
  withClassifiedErrors,
} from './index.ts';

// The key tables satisfy this adapter's options types, so an option added to a type and refused at
// the call fails the type check or the suite; the types refuse what the calls refuse.
const CALL_KEYS = WITH_CLASSIFIED_ERRORS_OPTION_KEYS satisfies Record<
  keyof WithClassifiedErrorsOptions,
  true
>;
const { readChunk: _readChunk, ...guardKeys } = GUARD_STREAM_OPTION_KEYS;
const GUARD_KEYS = guardKeys satisfies Record<keyof GuardStreamOptions, true>;
// @ts-expect-error: maxRetries is not an option (retry is)
const _misnamed: WithClassifiedErrorsOptions = { maxRetries: 3 };
// @ts-expect-error: maxAtempts is misspelt
const _misspelt: WithClassifiedErrorsOptions = { retry: { maxAtempts: 3 } };
// @ts-expect-error: idleTimeout is not an option (idleTimeoutMs is)
const _unknownGuardKey: GuardStreamOptions = { idleTimeout: 5 };
// @ts-expect-error: readChunk is the adapter's, not an option of its guard
const _readChunkOption: GuardStreamOptions = { readChunk: () => undefined };

optionKeysSuite({
  withClassifiedErrors: (fn, options) => withClassifiedErrors(fn, options),
  guardStream: (stream, options) => guardStream(stream, options),
  callKeys: CALL_KEYS,
  retryKeys: RETRY_OPTION_KEYS,
  guardKeys: GUARD_KEYS,
  guardRefusesReadChunk: true,
});
