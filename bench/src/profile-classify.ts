// Profiles `classify` alone on the throughput section's real messages: run with
// `node --conditions=@faultline/source --import tsx --cpu-prof src/profile-classify.ts`.
// `DUMP=file.json` writes the metadata instead, for comparing builds on the same input.
import { writeFileSync } from 'node:fs';
import { classify } from '@faultline/classify';
import { startScenarioServers } from '@faultline/scenario-driver';
import { classifyThroughputSample } from './classify-throughput.ts';

const servers = await startScenarioServers();
const metadata = await classifyThroughputSample(servers);
await servers.close();
if (process.env.DUMP !== undefined) {
  writeFileSync(process.env.DUMP, JSON.stringify(metadata, null, 1));
} else {
  const started = performance.now();
  let calls = 0;
  while (performance.now() - started < Number(process.env.PROFILE_MS ?? 3000)) {
    for (const entry of metadata) classify(entry);
    calls += metadata.length;
  }
  console.log(`${(((performance.now() - started) * 1e6) / calls).toFixed(0)} ns per classify`);
}
