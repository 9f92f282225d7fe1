export {
  type FaultlineRunOptions,
  faultlineAsTerminalError,
  faultlineRun,
  REPORT_METADATA_KEY,
  type RestateErrorOptions,
  recoverErrorReport,
  toRestateError,
  UNRECOVERABLE_INVOCATION_FAILURE,
} from './restate-bridge.ts';
