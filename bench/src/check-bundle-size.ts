// CI's bundle-size gate (.ci/run, after the build): fails when wrapping one openai call with
// faultline adds more than BUNDLE_GOAL_BYTES gzipped to a minimal app's bundle, on Node or in the
// browser. `pnpm --filter @faultline/bench run check-bundle-size`, on built packages.
import { BUNDLE_GOAL_BYTES, kilobytes, measureBundles } from './bundle-size.ts';

const rows = await measureBundles();
for (const row of rows) {
  console.log(
    `${row.met ? 'ok  ' : 'FAIL'} ${row.platform.padEnd(7)} faultline adds ${kilobytes(row.addedGzipBytes)} gzipped (limit ${kilobytes(BUNDLE_GOAL_BYTES)}; app ${kilobytes(row.bareGzipBytes)} → ${kilobytes(row.wrappedGzipBytes)}, minified ${kilobytes(row.bareBytes)} → ${kilobytes(row.wrappedBytes)})`,
  );
  console.log(
    `     heaviest, minified: ${row.packages
      .slice(0, 6)
      .map((entry) => `${entry.name} ${kilobytes(entry.bytes)}`)
      .join(', ')}`,
  );
}
if (rows.some((row) => !row.met)) {
  console.error(
    `\nBundle-size check failed: faultline must add at most ${kilobytes(BUNDLE_GOAL_BYTES)} gzipped to an app that wraps one openai call. Make it lighter, or change the limit in bench/src/bundle-size.ts with the reason.`,
  );
  process.exitCode = 1;
}
