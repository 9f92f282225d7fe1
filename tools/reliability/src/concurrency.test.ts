import { spawn } from 'node:child_process';
import { getEventListeners, setMaxListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultServer, startFaultServer } from './fault-server.ts';
import { fakeLoad, type LoadCounts, sdkLoad } from './load.ts';

const FAKE_CALLS = 3_000;
const SDK_CALLS = 300;
const ROUNDS = 5;
const CHILD_SDK_CALLS = 200;
/**
 * The child must finish its five rounds and exit on its own within this: it tells a child kept
 * alive by a leaked handle from a slow one on a busy machine, so it is far above the rounds' time.
 */
const CHILD_LIMIT_MS = 300_000;
/** The same bound for the in-process load (thousands of calls at once): a hang detector, not a speed claim. */
const LOAD_LIMIT_MS = 180_000;
/** heapUsed of round 5 may exceed round 2's by this much at most (after full collections). */
const HEAP_TOLERANCE_BYTES = 16 * 1024 * 1024;

/** What `fakeLoad(n)` must count: a quarter each of success, success on attempt 2, transient (3 attempts), permanent (1). */
function expectedFake(count: number): LoadCounts {
  const quarter = count / 4;
  return {
    calls: count,
    succeeded: 2 * quarter,
    classified: 2 * quarter,
    unclassified: 0,
    attempts: quarter * 7,
  };
}

/** Per five SDK calls: 3 succeed (after 1, 2 and 3 requests), a 401 (1 request), a 500 every time (3 requests). */
function expectedSdk(count: number): LoadCounts {
  const fifth = count / 5;
  return { calls: count, succeeded: 3 * fifth, classified: 2 * fifth, unclassified: 0, attempts: 10 * fifth };
}

function timerCount(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
}

describe(`concurrency in this process (${FAKE_CALLS} fake + ${SDK_CALLS} real SDK calls at once)`, () => {
  let server: FaultServer;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(async () => {
    server = await startFaultServer();
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server.close();
  });

  it(
    'every call settles as counted; no unhandled rejection, leaked timer or listener',
    async () => {
      const controller = new AbortController();
      setMaxListeners(0, controller.signal);
      const timersBefore = timerCount();
      const [fake, sdk] = await Promise.all([
        fakeLoad(FAKE_CALLS, controller.signal),
        sdkLoad(server, SDK_CALLS, controller.signal),
      ]);
      expect(fake).toEqual(expectedFake(FAKE_CALLS));
      expect(sdk).toEqual(expectedSdk(SDK_CALLS));
      // Give a rejection that nobody handled the turn it needs to be reported.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(timerCount()).toBeLessThanOrEqual(timersBefore);
    },
    LOAD_LIMIT_MS,
  );

  it(
    'an abort in the middle of thousands of retrying calls ends them all with the caller’s reason',
    async () => {
      const controller = new AbortController();
      setMaxListeners(0, controller.signal);
      const timersBefore = timerCount();
      const reason = new DOMException('shutting down', 'AbortError');
      const load = fakeLoad(FAKE_CALLS, controller.signal).catch((error: unknown) => error);
      // Retries wait 1-3 ms; abort while most transient calls are between attempts.
      setTimeout(() => controller.abort(reason), 2);
      const counts = (await load) as LoadCounts;
      expect(counts.calls).toBe(FAKE_CALLS);
      // Aborted calls reject with the caller's reason, untouched (counted as not classified).
      expect(counts.succeeded + counts.classified + counts.unclassified).toBe(FAKE_CALLS);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(timerCount()).toBeLessThanOrEqual(timersBefore);
    },
    LOAD_LIMIT_MS,
  );
});

interface ChildResult {
  readonly rounds: { fake: LoadCounts; sdk: LoadCounts; heapUsed: number }[];
  readonly unhandled: string[];
  readonly listeners: number;
  readonly timers: number;
}

describe(`a child process under load (${ROUNDS} rounds of ${FAKE_CALLS} fake + ${CHILD_SDK_CALLS} SDK calls)`, () => {
  it(
    'exits 0 on its own, with flat memory across rounds',
    async () => {
      const script = fileURLToPath(new URL('./load-child.ts', import.meta.url));
      const child = spawn(
        process.execPath,
        ['--expose-gc', '--conditions=@faultline/source', '--import', 'tsx', script],
        {
          cwd: fileURLToPath(new URL('..', import.meta.url)),
          env: {
            ...process.env,
            LOAD_ROUNDS: String(ROUNDS),
            LOAD_FAKE_CALLS: String(FAKE_CALLS),
            LOAD_SDK_CALLS: String(CHILD_SDK_CALLS),
            NODE_OPTIONS: '',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exit = await new Promise<{ code: number | null; timedOut: boolean }>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve({ code: null, timedOut: true });
        }, CHILD_LIMIT_MS);
        child.on('exit', (code) => {
          clearTimeout(timer);
          resolve({ code, timedOut: false });
        });
      });
      expect(exit.timedOut, `the child did not exit on its own; stderr: ${stderr.slice(0, 2000)}`).toBe(
        false,
      );
      expect(exit.code, stderr.slice(0, 2000)).toBe(0);
      const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ChildResult;
      expect(result.unhandled).toEqual([]);
      expect(result.listeners).toBe(0);
      expect(result.timers).toBe(0);
      expect(result.rounds).toHaveLength(ROUNDS);
      for (const round of result.rounds) {
        expect(round.fake).toEqual(expectedFake(FAKE_CALLS));
        expect(round.sdk).toEqual(expectedSdk(CHILD_SDK_CALLS));
      }
      const second = result.rounds[1]!.heapUsed;
      const fifth = result.rounds[ROUNDS - 1]!.heapUsed;
      expect(fifth - second).toBeLessThan(HEAP_TOLERANCE_BYTES);
    },
    CHILD_LIMIT_MS + 10_000,
  );
});
