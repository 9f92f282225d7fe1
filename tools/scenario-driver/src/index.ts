export {
  callProvider,
  DRIVEN_PROVIDERS,
  type DrivenProvider,
  type DriveOptions,
  type DriveOutcome,
  driveScenario,
  PROMPT,
  type ScenarioServers,
  startScenarioServers,
} from './drive.ts';
