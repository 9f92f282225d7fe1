import { createRequire } from 'node:module';
import { scrubSecrets } from '@faultline/render/toolkit';
import { Command, CommanderError, Option } from 'commander';
import { resolveProviderName } from './captured-input.ts';
import { classifyCommand, inputFormats, outputFormats } from './classify-command.ts';
import { demoCommand } from './demo-command.ts';
import { mockCommand } from './mock-command.ts';
import { CommandFailure, type TerminalStreams } from './terminal.ts';

// `src/program.ts` and the bundled `dist/cli.js` both sit one folder below package.json.
const packageJson = createRequire(import.meta.url)('../package.json') as { version: string };

export const version: string = packageJson.version;

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The `faultline` command tree; actions report their exit code through `setExitCode`. */
export function createProgram(streams: TerminalStreams, setExitCode: (code: number) => void): Command {
  const program = new Command();
  program
    .name('faultline')
    .description(
      'Classify LLM SDK failures: see it work (demo), classify a failure you captured (classify), or run a fault-injecting provider server for your own client (mock).',
    )
    .version(version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => streams.stdout.write(text),
      writeErr: (text) => streams.stderr.write(scrubSecrets(text)),
    });

  program
    .command('demo')
    .description(
      "drive every provider's real SDK into rate limits, quotas, overloads, context overflows, content blocks, bad keys, unknown models, DNS failures, refused connections and cut streams (against a loopback server), and show what faultline made of each",
    )
    .option('--json', 'print the reports as JSON ([{ provider, scenario, report }]) instead of the table')
    .option(
      '--provider <key>',
      'only this provider (repeatable): openai, anthropic, google-genai, bedrock, mistral, groq',
      (value: string, previous: string[] = []) => [...previous, resolveProviderName(value)],
    )
    .addHelpText(
      'after',
      '\nExit status: 0 when the demo ran (the failures are the point), 1 when a classification did not match its scenario.',
    )
    .action(async (options: { json?: boolean; provider?: string[] }) => {
      setExitCode(await demoCommand(options, streams));
    });

  program
    .command('classify')
    .description(
      'classify a captured failure: an HTTP response (--status, --header, body from --body-file or stdin) or a JSON log line holding a serialised SDK error',
    )
    .option('--status <code>', 'HTTP status of the captured response')
    .option('--header <line>', "response header as 'name: value' (repeatable)", collect)
    .option('--body-file <path>', 'file holding the response body (default: standard input)')
    .option(
      '--provider <key>',
      'openai, anthropic, google-genai, bedrock, mistral or groq (default: detected from the body shape)',
    )
    .option('--log-line <json>', 'a JSON log line (pino, winston) holding a serialised SDK error')
    .option('--model <name>', 'the model the failed call asked for (shown in the report)')
    .addOption(
      new Option(
        '--input-format <kind>',
        'http: a response; log: a JSON log line from --body-file or stdin',
      ).choices(inputFormats),
    )
    .addOption(
      new Option(
        '--format <name>',
        'output: panel (default on a terminal), json (default otherwise), markdown, wire',
      ).choices(outputFormats),
    )
    .option('--exit-zero', 'exit 0 whatever the classification')
    .option('--explain', 'also print the rule that decided, its evidence and the features classify read')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        "  faultline classify --status 429 --header 'retry-after: 20' --body-file body.json",
        '  curl -s ... | faultline classify --status 529 --provider anthropic --format json',
        '  faultline classify --log-line \'{"name":"RateLimitError","status":429,"headers":{},"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}\'',
        '',
        'Exit status: 2 for a configuration failure (bad key, unknown model, endpoint) and for bad input,',
        '1 for any other failure, 0 with --exit-zero.',
      ].join('\n'),
    )
    .action(async (options) => {
      setExitCode(await classifyCommand(options, streams));
    });

  program
    .command('mock')
    .description(
      "run the fault-injecting provider server of @faultline/llm-mock on 127.0.0.1 for a client in any language: healthy answers in the provider's format, or what --script says (429s with Retry-After, catalogue failures, stream cuts, stalls); logs each request and, when stopped, prints the verdict on the client's retries",
    )
    .option(
      '--provider <key>',
      'answer as this provider (repeatable; default openai): openai, anthropic, google-genai, bedrock, mistral, groq',
      (value: string, previous: string[] = []) => [...previous, resolveProviderName(value)],
    )
    .option('--port <n>', 'port on 127.0.0.1 (default: a free one, printed)')
    .option(
      '--script <file>',
      'JSON script: { "steps": [...], "chaos": {...} } or a bare step array (see @faultline/llm-mock)',
    )
    .option('--strict', 'exit 1 when the verdict finds the client broke the retry contract')
    .option('--quiet', 'do not log each request on stderr')
    .addHelpText(
      'after',
      [
        '',
        'Example:',
        '  echo \'[{"kind":"status","status":429,"retryAfter":1,"times":2},{"kind":"ok"}]\' > script.json',
        '  faultline mock --provider openai --port 8080 --script script.json',
        '  OPENAI_BASE_URL=http://127.0.0.1:8080/v1 python app.py',
        '',
        'Stops on Ctrl-C (SIGINT) or SIGTERM.',
      ].join('\n'),
    )
    .action(async (options) => {
      const stopped = new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      setExitCode(await mockCommand(options, streams, stopped));
    });

  for (const command of program.commands) {
    command.exitOverride().configureOutput({
      writeOut: (text) => streams.stdout.write(text),
      // A usage error can quote an argument: never echo a key that was pasted in the wrong place.
      writeErr: (text) => streams.stderr.write(scrubSecrets(text)),
    });
  }
  return program;
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. Never throws. */
export async function runCli(argv: string[], streams: TerminalStreams): Promise<number> {
  let exitCode = 0;
  const program = createProgram(streams, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; commander has already printed a usage error on one line.
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof CommandFailure) {
      streams.stderr.write(`faultline: ${scrubSecrets(error.message)}\n`);
      return error.exitCode;
    }
    const message = error instanceof Error ? error.message : String(error);
    streams.stderr.write(`faultline: unexpected failure: ${scrubSecrets(message).split('\n')[0]}\n`);
    return 1;
  }
}
