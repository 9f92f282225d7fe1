// `classify` alone on the throughput section's real messages (classify-throughput.ts):
// `node --conditions=@faultline/source --import tsx src/profile-classify.ts` runs the section's
// measurement alone and prints it; add `--cpu-prof` and `PROFILE_MS=3000` for a profiling loop
// instead; `DUMP=file.json` writes the metadata, for comparing builds on the same input.
import { writeFileSync } from 'node:fs';
import { classify } from '@faultline/classify';
import { startScenarioServers } from '@faultline/scenario-driver';
import { benchClassifyThroughput, classifyThroughputSample } from './classify-throughput.ts';
import { formatNs } from './statistics.ts';

const servers = await startScenarioServers();
try {
  if (process.env.DUMP !== undefined) {
    writeFileSync(process.env.DUMP, JSON.stringify(await classifyThroughputSample(servers), null, 1));
  } else if (process.env.PROFILE_MS !== undefined) {
    const metadata = await classifyThroughputSample(servers);
    const started = performance.now();
    let calls = 0;
    while (performance.now() - started < Number(process.env.PROFILE_MS)) {
      for (const entry of metadata) classify(entry);
      calls += metadata.length;
    }
    console.log(`${(((performance.now() - started) * 1e6) / calls).toFixed(0)} ns per classify`);
  } else {
    const row = await benchClassifyThroughput(servers);
    console.log(
      `classify on ${row.messages} messages (mean ${row.meanMessageLength} characters): ${formatNs(row.classify.medianNs)} ± ${formatNs(row.classify.iqrNs)} a call, ${Math.round(row.perSecond).toLocaleString('en')} a second, ×${row.ratioToGoal.toFixed(2)} the goal`,
    );
  }
} finally {
  await servers.close();
}
