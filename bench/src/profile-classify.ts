// `classify` alone on the throughput section's real messages (classify-throughput.ts):
// `node --conditions=@faultline/source --import tsx src/profile-classify.ts` runs the section's
// measurement alone and prints it; add `--cpu-prof` and `PROFILE_MS=3000` for a profiling loop
// instead; `DUMP=file.json` writes the metadata, for comparing builds on the same input;
// `COLD=15` times the first and the second classify in each of 15 fresh processes (the built
// package, `pnpm build` first; import not counted) and prints the medians.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classify } from '@faultline/classify';
import { startScenarioServers } from '@faultline/scenario-driver';
import { benchClassifyThroughput, classifyThroughputSample } from './classify-throughput.ts';
import { formatNs, median } from './statistics.ts';

/** A fresh process: imports the built classify, then times its first and second call (ms). */
const COLD_SCRIPT = `
import { readFileSync } from 'node:fs';
const { classify } = await import('@faultline/classify/toolkit');
const sample = JSON.parse(readFileSync(process.argv[1], 'utf8'));
const t0 = performance.now();
classify(sample[0]);
const t1 = performance.now();
classify(sample[1]);
const t2 = performance.now();
console.log(JSON.stringify([t1 - t0, t2 - t1]));
`;

const servers = await startScenarioServers();
try {
  if (process.env.DUMP !== undefined) {
    writeFileSync(process.env.DUMP, JSON.stringify(await classifyThroughputSample(servers), null, 1));
  } else if (process.env.COLD !== undefined) {
    const directory = mkdtempSync(join(tmpdir(), 'classify-cold-'));
    try {
      const file = join(directory, 'sample.json');
      writeFileSync(file, JSON.stringify(await classifyThroughputSample(servers)));
      const first: number[] = [];
      const second: number[] = [];
      for (let run = 0; run < Number(process.env.COLD); run += 1) {
        const output = execFileSync(process.execPath, ['--input-type=module', '-e', COLD_SCRIPT, file], {
          encoding: 'utf8',
        });
        const [one, two] = JSON.parse(output) as [number, number];
        first.push(one);
        second.push(two);
      }
      console.log(
        `fresh process, median of ${first.length}: first classify ${median(first).toFixed(2)} ms, second ${median(second).toFixed(2)} ms`,
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
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
      `classify on ${row.messages} messages (mean ${row.meanMessageLength} characters): ${formatNs(row.classify.medianNs)} ± ${formatNs(row.classify.iqrNs)} a call, ${Math.round(row.perSecond).toLocaleString('en')} a second, ×${row.ratioToGoal.toFixed(2)} the goal; one pass over the text ${formatNs(row.onePass.medianNs)}`,
    );
  }
} finally {
  await servers.close();
}
