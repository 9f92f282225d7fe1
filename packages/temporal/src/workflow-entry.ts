// The entry for workflow code (`@faultline/temporal/workflow`): only what is safe to bundle
// into Temporal's deterministic workflow sandbox.
export { withFaultlineWorkflow } from './workflow.ts';
