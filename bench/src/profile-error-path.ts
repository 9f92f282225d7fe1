// Profiles the error path on each provider's real rate-limit error: run with
// `node --conditions=@faultline/source --import tsx --cpu-prof src/profile-error-path.ts [provider]`.
// PROFILE_PATH=throw profiles what a throw site pays (the error, nothing read), =decide the error
// and its classification, and the default (whole) adds the report.
import { startScenarioServers } from '@faultline/scenario-driver';
import { errorPathSamples } from './error-path.ts';

const servers = await startScenarioServers();
const samples = await errorPathSamples(servers);
await servers.close();
const wanted = process.argv[2];
const path = process.env.PROFILE_PATH ?? 'whole';
for (const sample of samples) {
  if (wanted !== undefined && sample.provider !== wanted) continue;
  const once =
    path === 'throw' ? sample.throwOnce : path === 'decide' ? sample.decideOnce : sample.classifyOnce;
  const started = performance.now();
  let rounds = 0;
  while (performance.now() - started < Number(process.env.PROFILE_MS ?? 2000)) {
    for (let index = 0; index < 1000; index += 1) once();
    rounds += 1000;
  }
  console.log(
    `${sample.provider} (${path}): ${(((performance.now() - started) * 1e6) / rounds).toFixed(0)} ns per error`,
  );
}
