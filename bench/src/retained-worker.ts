// Measures, in a fresh process with --expose-gc, the heap each error retains: 100k real SDK errors
// held alive, then a FaultlineError and its report for each (the FaultlineError keeps the SDK
// error as its cause, so the second step counts faultline's own bytes only). Prints JSON rows.
import { classifyError } from '@faultline/render';
import { startScenarioServers } from '@faultline/scenario-driver';
import { rateLimitSample, subjects } from './error-path.ts';
import { floorOf } from './retained-floor.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('bench: the retained-memory worker needs --expose-gc');
const count = Number(process.argv[2] ?? '100000');

function heapAfterGc(): number {
  for (let pass = 0; pass < 3; pass += 1) gc!();
  return process.memoryUsage().heapUsed;
}

/** Both steps in a function of their own, so that nothing of one provider outlives it. */
function measure(
  construct: () => unknown,
  options: Parameters<typeof classifyError>[1],
): { sdkBytesPerError: number; faultlineBytesPerError: number; floorBytesPerError: number } {
  // Warm both paths so that code and caches are not counted as retained.
  for (let index = 0; index < 1000; index += 1) classifyError(construct(), options).toErrorReport();
  const before = heapAfterGc();
  const sdkErrors: unknown[] = new Array(count);
  for (let index = 0; index < count; index += 1) sdkErrors[index] = construct();
  const withSdkErrors = heapAfterGc();
  // Two flat arrays, not an [error, report] pair per error: a pair (~64 B) is the harness's, not
  // faultline's, and was counted as faultline's.
  const errors: unknown[] = new Array(count);
  const reports: unknown[] = new Array(count);
  for (let index = 0; index < count; index += 1) {
    const error = classifyError(sdkErrors[index], options);
    errors[index] = error;
    reports[index] = error.toErrorReport();
  }
  const withFaultline = heapAfterGc();
  // Warmed like the rest, then the floor's error and report for every held pair, in two flat
  // arrays as above (so that the figures compare).
  for (let index = 0; index < 1000; index += 1)
    floorOf(errors[index] as Record<string, unknown>, reports[index] as Record<string, unknown>);
  const beforeFloor = heapAfterGc();
  const floorErrors: unknown[] = new Array(count);
  const floorReports: unknown[] = new Array(count);
  for (let index = 0; index < count; index += 1) {
    [floorErrors[index], floorReports[index]] = floorOf(
      errors[index] as Record<string, unknown>,
      reports[index] as Record<string, unknown>,
    );
  }
  const withFloor = heapAfterGc();
  // Every array stays alive until here.
  if (
    sdkErrors.length + errors.length + reports.length + floorErrors.length + floorReports.length !==
    5 * count
  )
    throw new Error('bench: unreachable');
  return {
    sdkBytesPerError: (withSdkErrors - before) / count,
    faultlineBytesPerError: (withFaultline - withSdkErrors) / count,
    floorBytesPerError: (withFloor - beforeFloor) / count,
  };
}

const servers = await startScenarioServers();
const rows: unknown[] = [];
try {
  for (const subject of subjects) {
    const sample = await rateLimitSample(subject.provider, servers);
    const construct = subject.construct(sample);
    const options = { extractors: [subject.extractor] };
    rows.push({ provider: subject.provider, errors: count, ...measure(construct, options) });
  }
} finally {
  await servers.close();
}
process.stdout.write(JSON.stringify(rows));
