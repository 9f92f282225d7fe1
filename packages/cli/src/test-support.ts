import { dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from './program.ts';
import type { TerminalStreams } from './terminal.ts';

export const packageDirectory = join(dirname(fileURLToPath(import.meta.url)), '..');

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

/**
 * Runs `faultline` from source in this process, through `runCli` with its own streams (pipes, not a
 * TTY) and environment: what the bin does, minus starting Node and loading the SDKs again for every
 * command. What only a real process shows (a terminal, the built bin, signals) is tested through
 * one: demo-command.test.ts (script(1)), built-bin.test.ts, mock-command.test.ts.
 */
export async function runFaultline(args: string[], options: CliRunOptions = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const collect = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const input = options.input ?? '';
  const streams: TerminalStreams = {
    stdout: collect((text) => {
      stdout += text;
    }),
    stderr: collect((text) => {
      stderr += text;
    }),
    stdin: Readable.from(input === '' ? [] : [input]),
    environment: { ...process.env, ...options.environment },
  };
  const limitMs = options.timeoutMs ?? 80_000;
  let timer: NodeJS.Timeout | undefined;
  const code = await Promise.race([
    runCli(args, streams),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`faultline ${args.join(' ')} did not finish within ${limitMs} ms`)),
        limitMs,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  return { stdout, stderr, code };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point.
export const ansiEscape = /\u001b\[/;

/** A stack trace line (`    at fn (file:1:2)`). */
export const stackTraceLine = /^\s+at\s.+[:(]/m;
