export {
  type CapturedResponse,
  detectLoggedProvider,
  detectProvider,
  loggedError,
  parseHeaderLines,
  responseFromLoggedError,
} from './captured-input.ts';
export {
  type CallContext,
  type ClassifyOptions,
  classifyThroughSdk,
  type InputFormat,
  inputFormats,
  type OutputFormat,
  outputFormats,
  renderReport,
} from './classify-command.ts';
export {
  type DemoOptions,
  type DemoOutcome,
  type DemoResult,
  demoLabels,
  formatDemoTable,
  runDemo,
} from './demo-command.ts';
export { type MockOptions, mockCommand } from './mock-command.ts';
export { createProgram, runCli, version } from './program.ts';
export type { Colors, TerminalStreams } from './terminal.ts';
