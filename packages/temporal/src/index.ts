export {
  FAULTLINE_FAILURE_TYPE,
  type FaultlineActivityOptions,
  reportDetails,
  toApplicationFailure,
  withFaultlineActivity,
} from './activity.ts';
export { recoverErrorReport, UNRECOVERABLE_WORKFLOW_FAILURE } from './client.ts';
export { faultlineWorkerOptions } from './workflow.ts';
