import picocolors from 'picocolors';

/** The streams a command writes to; tests and the bin pass the process's own. */
export interface TerminalStreams {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  environment: NodeJS.ProcessEnv;
}

export function processStreams(): TerminalStreams {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, environment: process.env };
}

/** Colours only on a TTY, and never with `NO_COLOR` set (https://no-color.org: any non-empty value). */
export function colorEnabled(stream: { isTTY?: boolean }, environment: NodeJS.ProcessEnv): boolean {
  const noColor = environment.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  return stream.isTTY === true;
}

export type Colors = ReturnType<typeof picocolors.createColors>;

export function colorsFor(stream: { isTTY?: boolean }, environment: NodeJS.ProcessEnv): Colors {
  return picocolors.createColors(colorEnabled(stream, environment));
}

/** A failure of the command itself (bad input, broken demo): one line on stderr, never a stack. */
export class CommandFailure extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = 'CommandFailure';
    this.exitCode = exitCode;
  }
}
