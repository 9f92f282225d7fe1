// Measures, in a fresh process with --expose-gc, the heap each error retains: 100k real SDK errors
// held alive, then a FaultlineError and its report for each (the FaultlineError keeps the SDK
// error as its cause, so the second step counts faultline's own bytes only). Prints JSON rows.
import { classifyError } from '@faultline/render';
import { startScenarioServers } from '@faultline/scenario-driver';
import { rateLimitSample, subjects } from './error-path.ts';

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
): { sdkBytesPerError: number; faultlineBytesPerError: number } {
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
  // Every array stays alive until here.
  if (sdkErrors.length + errors.length + reports.length !== 3 * count) throw new Error('bench: unreachable');
  return {
    sdkBytesPerError: (withSdkErrors - before) / count,
    faultlineBytesPerError: (withFaultline - withSdkErrors) / count,
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
