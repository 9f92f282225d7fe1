import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageDirectory = join(dirname(fileURLToPath(import.meta.url)), '..');
const cliPath = join(packageDirectory, 'src', 'cli.ts');

export interface CliRun {
  stdout: string;
  stderr: string;
  code: number | null;
}

export interface CliRunOptions {
  input?: string;
  environment?: Record<string, string | undefined>;
  timeoutMs?: number;
}

/** Runs `faultline` from source in a subprocess (stdin/stdout/stderr are pipes, not a TTY). */
export function runFaultline(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  const environment: Record<string, string | undefined> = { ...process.env, ...options.environment };
  // vitest may pass its resolve conditions down through NODE_OPTIONS; the command line sets its own.
  delete environment.NODE_OPTIONS;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@faultline/source', '--import', 'tsx', cliPath, ...args],
      {
        cwd: packageDirectory,
        env: environment as NodeJS.ProcessEnv,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`faultline ${args.join(' ')} did not finish within ${options.timeoutMs ?? 80_000} ms`),
      );
    }, options.timeoutMs ?? 80_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
    child.stdin.end(options.input ?? '');
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point.
export const ansiEscape = /\u001b\[/;

/** A stack trace line (`    at fn (file:1:2)`). */
export const stackTraceLine = /^\s+at\s.+[:(]/m;
