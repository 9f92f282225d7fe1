export {
  ADAPTER_IDEAS,
  type AdapterIdea,
  adapterRow,
  checkCommonExports,
  exportedTypeNames,
} from './check-common-exports.ts';
export { checkScenarioCoverage, EXEMPT_REASONS, isNonTrivialExplanation } from './check-coverage.ts';
export {
  checkExports,
  entryFileFor,
  extractorOf,
  loadProviderModule,
  type ProviderModule,
} from './check-exports.ts';
export { checkEverythingListed } from './check-listed.ts';
export {
  checkManifest,
  checkPackagePresent,
  installedVersionOf,
  type PackageManifest,
  readManifest,
  sdkDevDependencies,
  sourceCondition,
} from './check-manifest.ts';
export { checkOptions, OPTION_MATRIX_MODULE } from './check-options.ts';
export { checkScenarioSuite, SCENARIO_SUITE_MODULE } from './check-scenario-suite.ts';
export {
  CONFORMANCE_SEED,
  checkLeavesUnrelated,
  checkPlantedBodies,
  checkTotality,
  hostileProxy,
  hostileValues,
  type LabelledValue,
  MAX_EXTRACT_MILLISECONDS,
  plantedCarriers,
  unrelatedValues,
} from './conformance.ts';
export {
  allProblems,
  CHECK_NAMES,
  CHECK_TITLES,
  type CheckName,
  type ParityOptions,
  type ProviderParity,
  runParityChecks,
} from './parity.ts';
export {
  about,
  camelCase,
  extractorExportName,
  isProviderName,
  PROVIDER_LIST_FILE,
  type ProviderEntry,
  type ProviderList,
  packagePathFor,
  pascalCase,
  providerListPath,
  REPOSITORY_ROOT,
  readProviderList,
  scenarioPathFor,
} from './provider-list.ts';
export {
  collectRealErrors,
  driverFor,
  type ProviderDriver,
  plantCanary,
  type RealError,
  type ScenarioCall,
  type Servers,
  scenarioDriverProblem,
  startServers,
} from './real-errors.ts';
