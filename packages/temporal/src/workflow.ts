import { FaultlineError, toDict, toErrorReport } from '@faultline/render';
import { ApplicationFailure } from '@temporalio/common';

/** Every faultline error class extends this one; Temporal matches names along the prototype chain. */
const FAULTLINE_ERROR_CLASS = 'FaultlineError';

/**
 * Worker options that make a `FaultlineError` thrown in workflow code fail the workflow instead
 * of failing the workflow task (which Temporal retries forever). Temporal's own transient errors
 * are not listed, so they keep failing the task and being retried. Spread into `Worker.create`:
 * `Worker.create({ ...faultlineWorkerOptions(), workflowsPath, ... })`.
 *
 * `workflowFailureErrorTypes` is marked experimental in the Temporal SDK (1.x).
 */
export function faultlineWorkerOptions(existing: Record<string, string[]> = {}): {
  workflowFailureErrorTypes: Record<string, string[]>;
} {
  const all = existing['*'] ?? [];
  return {
    workflowFailureErrorTypes: {
      ...existing,
      '*': all.includes(FAULTLINE_ERROR_CLASS) ? all : [...all, FAULTLINE_ERROR_CLASS],
    },
  };
}

/**
 * Workflow-level floor: runs the workflow body and turns a `FaultlineError` it throws into a
 * non-retryable `ApplicationFailure` carrying the report, which fails the workflow (with the
 * report in its details) rather than the workflow task. Everything else is re-thrown untouched,
 * so Temporal's own errors keep their meaning.
 */
export async function withFaultlineWorkflow<Result>(body: () => Promise<Result>): Promise<Result> {
  try {
    return await body();
  } catch (thrown) {
    if (!FaultlineError.isInstance(thrown)) throw thrown;
    const report = toErrorReport(thrown);
    throw ApplicationFailure.create({
      message: report.message,
      type: 'FaultlineError',
      nonRetryable: true,
      details: [toDict(report)],
    });
  }
}
