import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS } from '@faultline/render/toolkit';
import type { FloorWrapper, WorkerRequest, WorkerResult } from './stream-guard-worker.ts';

/** The goal: the guard adds less than this share of a real SDK stream's per-chunk cost. */
export const STREAM_GUARD_GOAL_SHARE = 0.01;

/** One provider, measured in a process of its own (see stream-guard-worker.ts). */
export interface StreamGuardRow extends WorkerResult {
  /** share < goal. */
  readonly met: boolean;
}

/** What each floor wrapper is: a wrapper that does nothing a guard does beyond what is said here. */
export const STREAM_FLOORS: ReadonlyArray<{ readonly wrapper: FloorWrapper; readonly description: string }> =
  [
    { wrapper: 'forward', description: "`next()` returns the source's own promise (sees nothing)" },
    {
      wrapper: 'then',
      description:
        'one `.then` per `next()`, the step handed on (sees every step: the least a guard without an idle timer adds)',
    },
    {
      wrapper: 'rejectable',
      description:
        'the same plus a promise of its own per `next()` that a stalled read can be rejected through (the least a guard with an idle timer adds when it cannot end a stalled read by aborting its request)',
    },
    {
      wrapper: 'reading',
      description:
        'the rejectable floor plus reading the text each chunk delivers by the shortest path in these chunks (the least a guard adds that has an idle timer and counts delivered characters, as every faultline guard does: reading a chunk touches objects nothing else in the pull does)',
    },
    { wrapper: 'yield*', description: 'an `async function*` pass-through (`yield* source`)' },
  ];

export interface StreamGuardResult {
  readonly idleTimeoutMs: number;
  readonly rounds: number;
  readonly rows: StreamGuardRow[];
}

/** The providers, in the order the table shows them. */
const PROVIDERS = ['openai', 'anthropic', 'google-genai', 'bedrock', 'mistral', 'groq'] as const;

interface StreamServer {
  readonly port: number;
  readonly h2cPort: number;
  close(): Promise<void>;
}

/** The bench's own loader flags (tsx, conditions) for a child, so that it loads what this process loads. */
function childExecArgv(): string[] {
  const own = process.execArgv.filter((flag) => !flag.startsWith('--inspect'));
  return own.some((flag) => flag.includes('tsx')) ? own : [...own, '--import', 'tsx'];
}

/** The child process serving the streams (stream-server-worker.ts), through the bench's tsx loader. */
async function startStreamServer(): Promise<StreamServer> {
  const worker: ChildProcess = fork(
    fileURLToPath(new URL('./stream-server-worker.ts', import.meta.url)),
    [],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const ports = await new Promise<{ port: number; h2cPort: number }>((resolve, reject) => {
    worker.once('message', (message: { port: number; h2cPort: number }) => resolve(message));
    worker.once('exit', (code) => reject(new Error(`bench: the stream server exited (${code})`)));
  });
  const close = () =>
    new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.send({ kind: 'close' });
    });
  return { ...ports, close };
}

/** One provider's measurement in a fresh process that loads that provider's SDK and guard alone. */
function measureInOwnProcess(request: WorkerRequest): Promise<WorkerResult> {
  const worker = fork(fileURLToPath(new URL('./stream-guard-worker.ts', import.meta.url)), [], {
    execArgv: childExecArgv(),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<WorkerResult>((resolve, reject) => {
    let settled = false;
    worker.on('message', (message: { ready?: true; result?: WorkerResult; error?: string }) => {
      if (message.ready === true) worker.send(request);
      else if (message.result !== undefined) {
        settled = true;
        resolve(message.result);
      } else if (message.error !== undefined) {
        settled = true;
        reject(new Error(`bench: the ${request.provider} stream-guard process failed: ${message.error}`));
      }
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`bench: the ${request.provider} stream-guard process exited (${code})`));
    });
  });
}

/**
 * The stream guards' cost: each provider in a process of its own, with only its SDK and guard
 * loaded (what an application using that SDK runs), one after another. In each process, every
 * round runs, interleaved: the real SDK's long and shortest streams from a loopback server in a
 * child process (the SDK's cost of one more chunk is their difference over the chunks between
 * them), the SDK's long stream guarded, the provider's chunks replayed in memory unguarded and
 * guarded (default options with the idle timer on, and with it off; for the Stainless SDKs through
 * the SDK's own raw `Stream`), and the floors (wrappers that
 * do nothing a guard does beyond looking at each step) over the same replay. The guard's share is
 * taken per round (its added cost per chunk in that round against the SDK's cost per chunk in that
 * round) and reported as the median over the rounds.
 */
export async function benchStreamGuard({
  inMemoryChunks = 1000,
  sdkChunks = 200,
  rounds = 7,
  providers = PROVIDERS as readonly string[],
} = {}): Promise<StreamGuardResult> {
  const server = await startStreamServer();
  const rows: StreamGuardRow[] = [];
  try {
    for (const provider of providers) {
      const result = await measureInOwnProcess({
        provider,
        port: server.port,
        h2cPort: server.h2cPort,
        inMemoryChunks,
        sdkChunks,
        rounds,
      });
      rows.push({ ...result, met: result.share < STREAM_GUARD_GOAL_SHARE });
    }
  } finally {
    await server.close();
  }
  return { idleTimeoutMs: DEFAULT_STREAM_IDLE_TIMEOUT_MS, rounds, rows };
}
