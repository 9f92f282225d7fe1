/**
 * Run by concurrency.test.ts in a child process (`node --expose-gc`): rounds of thousands of
 * concurrent calls, fake and real-SDK, through withClassifiedErrors with retries. It writes one
 * JSON line of results and must then exit on its own (no `process.exit`): a leaked timer, socket
 * or listener keeps it alive and the parent sees a timeout.
 */
import { getEventListeners, setMaxListeners } from 'node:events';
import { startFaultServer } from './fault-server.ts';
import { fakeLoad, type LoadCounts, sdkLoad } from './load.ts';

const ROUNDS = Number(process.env.LOAD_ROUNDS ?? 5);
const FAKE_CALLS = Number(process.env.LOAD_FAKE_CALLS ?? 3_000);
const SDK_CALLS = Number(process.env.LOAD_SDK_CALLS ?? 200);

const unhandled: string[] = [];
process.on('unhandledRejection', (reason) => {
  unhandled.push(String(reason).slice(0, 200));
  process.exitCode = 1;
});

function collect(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') throw new Error('run with --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const server = await startFaultServer();
const controller = new AbortController();
// Thousands of calls share the caller's signal, each adding a listener for its life.
setMaxListeners(0, controller.signal);
const rounds: { fake: LoadCounts; sdk: LoadCounts; heapUsed: number }[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const [fake, sdk] = await Promise.all([
      fakeLoad(FAKE_CALLS, controller.signal),
      sdkLoad(server, SDK_CALLS, controller.signal),
    ]);
    // Let keep-alive sockets and timers of this round settle before measuring.
    await new Promise((resolve) => setTimeout(resolve, 50));
    rounds.push({ fake, sdk, heapUsed: collect() });
  }
} finally {
  await server.close();
}
const listeners = getEventListeners(controller.signal, 'abort').length;
const timers = process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
process.stdout.write(`${JSON.stringify({ rounds, unhandled, listeners, timers })}\n`);
