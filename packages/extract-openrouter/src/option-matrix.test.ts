import { FaultlineError } from '@faultline/render';
import { optionMatrix } from '@faultline/test-fixtures/option-matrix';
import { withClassifiedErrors } from './index.ts';
import { callSdk, SDKS } from './test-support.ts';

// Every documented option of withClassifiedErrors (deadlineMs, signal, retry, idempotent,
// inspectResult) through each installed major of the REAL @openrouter/sdk, against the loopback server
// (test-fixtures/src/option-matrix.ts; parity requires this test). Once OpenRouter has a stream
// guard (providers.json "streamGuard"), give it here as `stream` (extract-groq's
// src/option-matrix.test.ts is a model).

/** A healthy answer of the API the driver calls, as OpenRouter sends it (the matrix's retries end on it). */
const HEALTHY_ANSWER = '{}';

optionMatrix({
  provider: 'openrouter',
  sdks: SDKS,
  sdkPackage: { name: '@openrouter/sdk', packageDir: new URL('..', import.meta.url).pathname },
  plays: (scenario) => scenario.stream !== true,
  call: (sdk, baseUrl, { scenario, signal, timeoutMs }) =>
    callSdk(sdk, baseUrl, { api: scenario.api, stream: false, signal, timeoutMs }),
  success: { api: 'chat', response: { kind: 'http', status: 200, body: HEALTHY_ANSWER } },
  // Export detectBlockedAnswer (and drop this) once OpenRouter is known to withhold answers in a 200.
  noBlockedAnswer:
    'no way for OpenRouter to withhold an answer in a 200 is known yet (providers.json "lacks")',
  withClassifiedErrors,
  reportOf: (error) => (FaultlineError.isInstance(error) ? error.toErrorReport() : undefined),
});
