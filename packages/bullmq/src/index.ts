export {
  FAULTLINE_BACKOFF_TYPE,
  type FaultlineBackoffOptions,
  FaultlineJobError,
  type FaultlineProcessorOptions,
  faultlineBackoffStrategy,
  faultlineJobOptions,
  recoverErrorReport,
  UNRECOVERABLE_JOB_FAILURE,
  withFaultlineProcessor,
} from './bullmq-bridge.ts';
