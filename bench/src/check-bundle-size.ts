// CI's bundle-size gate (.ci/run, after the build): fails when wrapping one openai call with
// faultline adds more than BUNDLE_LIMIT_BYTES gzipped to a minimal app's bundle, on Node or in the
// browser, and says how far it is from the goal. `pnpm --filter @faultline/bench run
// check-bundle-size`, on built packages.
import { BUNDLE_GOAL_BYTES, BUNDLE_LIMIT_BYTES, kilobytes, measureBundles } from './bundle-size.ts';

const rows = await measureBundles();
for (const row of rows) {
  console.log(
    `${row.addedGzipBytes <= BUNDLE_LIMIT_BYTES ? 'ok  ' : 'FAIL'} ${row.platform.padEnd(7)} faultline adds ${kilobytes(row.addedGzipBytes)} gzipped (limit ${kilobytes(BUNDLE_LIMIT_BYTES)}, goal ${kilobytes(BUNDLE_GOAL_BYTES)}: ${row.met ? 'met' : 'not met'}; app ${kilobytes(row.bareGzipBytes)} → ${kilobytes(row.wrappedGzipBytes)}, minified ${kilobytes(row.bareBytes)} → ${kilobytes(row.wrappedBytes)})`,
  );
  console.log(
    `     heaviest, minified: ${row.packages
      .slice(0, 6)
      .map((entry) => `${entry.name} ${kilobytes(entry.bytes)}`)
      .join(', ')}`,
  );
}
if (rows.some((row) => row.addedGzipBytes > BUNDLE_LIMIT_BYTES)) {
  console.error(
    `\nBundle-size check failed: faultline must add at most ${kilobytes(BUNDLE_LIMIT_BYTES)} gzipped to an app that wraps one openai call. Make it lighter, or change the limit in bench/src/bundle-size.ts with the reason.`,
  );
  process.exitCode = 1;
}
