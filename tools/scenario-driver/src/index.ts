export {
  callProvider,
  DRIVEN_PROVIDERS,
  type DrivenProvider,
  type DriveOptions,
  type DriveOutcome,
  driveAll,
  driveScenario,
  PROMPT,
  type ScenarioServers,
  startScenarioServers,
} from './drive.ts';
