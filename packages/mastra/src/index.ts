export {
  classifyMastraError,
  type FaultlineErrorProcessor,
  type FaultlineErrorProcessorOptions,
  faultlineErrorProcessor,
  type MastraApiErrorArgs,
  type MastraClassifyOptions,
} from './error-processor.ts';
export {
  type FaultlineMastraOptions,
  type FaultlineModelEntry,
  type FaultlineModelList,
  faultlineModels,
  type MastraModelLike,
  withFaultline,
} from './with-faultline.ts';
