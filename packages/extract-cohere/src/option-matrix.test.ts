import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { sseFrame } from '@faultline/test-fixtures/stream-matrix';
import { describe } from 'vitest';
import { withClassifiedErrors } from './index.ts';

// Every documented option of withClassifiedErrors (deadlineMs, signal, retry, idempotent,
// inspectResult) and of the stream guard, through each installed major of the REAL cohere-ai,
// against the loopback server (test-fixtures/src/option-matrix.ts; parity requires this test).
// TODO(cohere): import the SDK here (tests may; src may not), list each major in `SDKS` (by
// devDependency alias), write `call` and `stream.open`, give the stream guard once there is one,
// and remove `.skip` below. Any extract-* package's src/option-matrix.test.ts is a model.

const SDKS = [{ alias: 'cohere-ai' }] as const;

describe.skip('cohere options through the real cohere-ai', () => {
  optionMatrix({
    provider: 'cohere',
    sdks: SDKS,
    sdkPackage: { name: 'cohere-ai', packageDir: new URL('..', import.meta.url).pathname },
    plays: (scenario) => scenario.stream !== true,
    call: (_sdk, baseUrl) =>
      Promise.reject(new Error(`TODO(cohere): call cohere-ai at ${baseUrl} (retries off)`)),
    success: { response: { kind: 'http', status: 200, body: '{}' } },
    withClassifiedErrors,
    stream: {
      name: 'TODO(cohere): the SDK streaming call',
      stalled: sseFrame([{ data: '{}' }], 'stall'),
      open: (_sdk, baseUrl) => Promise.reject(new Error(`TODO(cohere): stream from cohere-ai at ${baseUrl}`)),
      guard: (stream) => stream,
    },
    reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
  });
});
