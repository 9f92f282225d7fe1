#!/usr/bin/env node
import { runCli } from './program.ts';
import { processStreams } from './terminal.ts';

const exitCode = await runCli(process.argv.slice(2), processStreams());
// SDK clients can keep sockets alive; once the output is flushed, the command is done.
process.stdout.write('', () => process.exit(exitCode));
