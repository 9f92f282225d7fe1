import type { ErrorReport } from '@faultline/render';
import { safeFromDict, unrecoverableReport } from '@faultline/render/toolkit';
import { FAULTLINE_FAILURE_TYPE } from './activity.ts';

/** The `errorType` of a report synthesised when no valid report could be recovered. */
export const UNRECOVERABLE_WORKFLOW_FAILURE = 'UnrecoverableWorkflowFailure';

const MAX_CHAIN = 64;

function read(value: unknown, key: string): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/**
 * Rebuilds the report a faultline-wrapped activity raised, from whatever the Temporal client
 * threw: `WorkflowFailedError → (ChildWorkflowFailure →)* ActivityFailure → ApplicationFailure`.
 * Duck-typed (by `name` and `details`), so it works across duplicate installs of the SDK.
 *
 * Total: with no report in the chain it returns a synthesised `UnrecoverableWorkflowFailure`
 * report (category unknown, never retryable) that keeps the deepest message; with a report that
 * fails the schema it does the same and says so in the message, so failure handling still runs.
 */
export function recoverErrorReport(error: unknown): ErrorReport {
  const seen = new Set<unknown>();
  let current: unknown = error;
  let deepestMessage = '';
  let schemaFailure: string | undefined;
  while (current !== undefined && current !== null && !seen.has(current) && seen.size < MAX_CHAIN) {
    seen.add(current);
    const message = read(current, 'message');
    if (typeof message === 'string' && message.length > 0) deepestMessage = message;
    if (read(current, 'name') === 'ApplicationFailure' && read(current, 'type') === FAULTLINE_FAILURE_TYPE) {
      const details = read(current, 'details');
      const candidate = Array.isArray(details) ? details[0] : undefined;
      const parsed = safeFromDict(candidate);
      if (parsed.success) return parsed.data;
      schemaFailure = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ');
    }
    current = read(current, 'cause');
  }
  return unrecoverableWorkflowFailure(deepestMessage || 'Workflow failed', schemaFailure);
}

function unrecoverableWorkflowFailure(message: string, schemaFailure: string | undefined): ErrorReport {
  return unrecoverableReport(
    UNRECOVERABLE_WORKFLOW_FAILURE,
    schemaFailure === undefined
      ? 'Unrecoverable workflow failure'
      : `Unrecoverable workflow failure (the failure's report failed the schema: ${schemaFailure})`,
    message,
  );
}
