#!/usr/bin/env node
import { runCli } from './program.ts';
import { processStreams } from './terminal.ts';

// `faultline demo | head` closes the pipe early: that is the reader's choice, not a failure.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
}

const exitCode = await runCli(process.argv.slice(2), processStreams());
process.exitCode = exitCode;
// SDK clients can keep sockets alive; once the output is flushed, the command is done.
process.stdout.write('', () => process.exit(exitCode));
