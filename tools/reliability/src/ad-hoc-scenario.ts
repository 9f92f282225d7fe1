import type { DrivenProvider } from '@faultline/scenario-driver';
import type { Scenario } from '@faultline/test-fixtures';

/**
 * A Scenario object for `callProvider` when the server is not test-fixtures' (the fault server,
 * or test-fixtures' server with an in-memory response such as a 50 MB body). Only `provider`,
 * `stream`, `api` and `response` are read; `expected` is a placeholder.
 */
export function adHocScenario(
  provider: DrivenProvider,
  response: Scenario['response'] = { kind: 'http', status: 500, body: '' },
  stream = false,
): Scenario {
  return {
    id: `${provider}/ad-hoc`,
    provider,
    description: 'built in memory by tools/reliability',
    source: 'tools/reliability',
    stream,
    response,
    expected: {
      category: 'unknown',
      reason: 'unknown',
      retryable: false,
      userAction: 'unknown',
      httpStatus: 500,
    },
  };
}
