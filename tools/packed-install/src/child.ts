/**
 * Running a command as a user's shell would: what the packed-install step and its prepare step
 * (prepare.ts) spawn, npm above all.
 */
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** How long a child may run unless its caller says otherwise. */
export const CHILD_TIMEOUT_MS = 120_000;

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment a user's shell has: none of pnpm's npm_* variables, no NODE_PATH (pnpm's bin
 * shims point it into the workspace's .pnpm store, which let the installed CLI find a dependency
 * it never declares), no workspace folder on PATH, no colours.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm|pnpm)_/i.test(key) || ['NODE_OPTIONS', 'NODE_PATH', 'INIT_CWD'].includes(key)) continue;
    env[key] = value;
  }
  env.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((entry) => entry !== '' && !resolve(entry).startsWith(repoRoot))
    .join(':');
  return { ...env, NO_COLOR: '1', FORCE_COLOR: '0', ...extra };
}

export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string; timeoutMs?: number },
): Promise<Ran> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: userEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      stderr += `\n[packed-install] killed after ${options.timeoutMs ?? CHILD_TIMEOUT_MS} ms`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? CHILD_TIMEOUT_MS);
    child.on('error', (error) => {
      // Never a rejection: a command that cannot start is a failed run, reported by its check.
      clearTimeout(timer);
      resolvePromise({ code: null, stdout, stderr: `${stderr}\n${command}: ${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {}); // a child that exits before reading its input
    child.stdin.end(options.input ?? '');
  });
}
