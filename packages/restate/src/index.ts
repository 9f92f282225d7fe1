export {
  type FaultlineRunOptions,
  faultlineAsTerminalError,
  faultlineRun,
  REPORT_METADATA_KEY,
  recoverErrorReport,
  toRestateError,
  UNRECOVERABLE_INVOCATION_FAILURE,
} from './restate-bridge.ts';
