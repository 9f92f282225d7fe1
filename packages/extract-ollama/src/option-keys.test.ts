import { adapterOptionKeysSuite } from '@faultline/test-fixtures/option-keys-suite';
import {
  type GuardStreamOptions,
  guardStream,
  type WithClassifiedErrorsOptions,
  withClassifiedErrors,
} from './index.ts';

// The adapter's options types are held to the key tables its calls check, and refuse what they refuse.
adapterOptionKeysSuite<WithClassifiedErrorsOptions, GuardStreamOptions>(
  { withClassifiedErrors, guardStream },
  { refusesReadChunk: true },
);
