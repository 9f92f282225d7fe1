export {
  type CaseLabel,
  CorpusCase,
  CorpusFile,
  type CorpusSdk,
  casesDir,
  corpusDir,
  type Floor,
  type LoadedCase,
  loadCorpus,
  loadFloor,
  loadKnownDisagreements,
  readCorpusFile,
} from './case.ts';
export {
  History,
  HistoryEntry,
  historyEntryOf,
  historyPath,
  loadHistory,
  rulesCommit,
  withEntry,
  writeHistory,
} from './history.ts';
export { type CaseResult, FIELDS, type Field, runCorpus, sdkVersions } from './run.ts';
export { checkFloor, markdown, missLines, rowsOf, textTable } from './summary.ts';
