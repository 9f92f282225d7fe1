import picocolors from 'picocolors';
import wrapAnsi from 'wrap-ansi';

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

/**
 * The columns output must fit in: the terminal's own width, else `COLUMNS`, else 80; never less
 * than 60 (the narrowest a panel is drawn).
 */
export function terminalWidth(
  stream: { isTTY?: boolean; columns?: number },
  environment: NodeJS.ProcessEnv,
): number {
  const fromTerminal = stream.isTTY === true ? stream.columns : undefined;
  const fromEnvironment = Number.parseInt(environment.COLUMNS ?? '', 10);
  const width =
    fromTerminal !== undefined && fromTerminal > 0
      ? fromTerminal
      : Number.isFinite(fromEnvironment) && fromEnvironment > 0
        ? fromEnvironment
        : 80;
  return Math.max(60, width);
}

/**
 * Prose wrapped at word boundaries to `width` columns (colour escapes are not counted); a line's
 * own indentation is kept on each of its continuation lines.
 */
export function wrapProse(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => {
      const indent = /^ */.exec(line)?.[0] ?? '';
      return wrapAnsi(line.slice(indent.length), Math.max(1, width - indent.length), {
        hard: true,
        trim: true,
      })
        .split('\n')
        .map((part) => `${indent}${part}`)
        .join('\n');
    })
    .join('\n');
}

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
