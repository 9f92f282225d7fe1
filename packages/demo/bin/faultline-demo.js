#!/usr/bin/env node
// `faultline demo` with the provider SDKs and the AI SDK installed beside @faultline/cli: this
// package exists only to depend on them, so that `npm i -g @faultline/cli` stays small.
import { runCli } from '@faultline/cli';

for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
}

const streams = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  environment: process.env,
};
const exitCode = await runCli(['demo', ...process.argv.slice(2)], streams);
process.exitCode = exitCode;
// SDK clients can keep sockets alive; once the output is flushed, the demo is done.
process.stdout.write('', () => process.exit(exitCode));
