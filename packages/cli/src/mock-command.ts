import { readFileSync } from 'node:fs';
import {
  isProviderKey,
  type MockProvider,
  type MockRequest,
  PROVIDERS,
  type ProviderKey,
  parseScript,
  type Script,
  startMockProvider,
} from '@faultline/llm-mock';
import { CommandFailure, type TerminalStreams, terminalWidth, wrapProse } from './terminal.ts';

export interface MockOptions {
  provider?: string[];
  port?: string;
  script?: string;
  strict?: boolean;
  quiet?: boolean;
}

function readScripts(path: string, providers: readonly ProviderKey[]): Partial<Record<ProviderKey, Script>> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CommandFailure(`cannot read --script ${path}: ${(error as Error).message}`);
  }
  const keyed =
    typeof data === 'object' &&
    data !== null &&
    !Array.isArray(data) &&
    Object.keys(data).length > 0 &&
    Object.keys(data).every((key) => isProviderKey(key));
  const entries: Array<[ProviderKey, unknown]> = keyed
    ? (Object.entries(data as Record<string, unknown>) as Array<[ProviderKey, unknown]>)
    : providers.length === 1
      ? [[providers[0]!, data]]
      : [];
  if (entries.length === 0) {
    throw new CommandFailure(
      `--script ${path}: with several providers, key the script by provider ({ "openai": { "steps": [...] } })`,
    );
  }
  const scripts: Partial<Record<ProviderKey, Script>> = {};
  for (const [provider, script] of entries) {
    if (!providers.includes(provider)) {
      throw new CommandFailure(`--script ${path} scripts ${provider}, which is not a --provider`);
    }
    try {
      scripts[provider] = parseScript(script);
    } catch (error) {
      throw new CommandFailure(`--script ${path} (${provider}): ${(error as Error).message}`);
    }
  }
  return scripts;
}

/** One request, as a log line wrapped to `width` columns (continuations indented under it). */
function logLine(request: MockRequest, width: number): string {
  const answer = request.answer;
  const reason =
    answer.reason === undefined ? '' : ` [${answer.reason}${answer.retryable ? ', retryable' : ''}]`;
  const time = new Date(request.time).toISOString().slice(11, 23);
  const line = `#${request.index} ${time} ${request.provider} ${request.method} ${request.path} (${request.bodyBytes} B) → ${answer.label}${reason}`;
  return Number.isFinite(width) ? `${wrapProse(line, width - 4).replaceAll('\n', '\n    ')}\n` : `${line}\n`;
}

/**
 * `faultline mock`: the fault-injecting provider server of @faultline/llm-mock, standalone, for a
 * client in any language. Logs each request, and when stopped prints the verdict on the client.
 * Resolves to the exit code once `until` settles (the bin passes SIGINT/SIGTERM).
 */
export async function mockCommand(
  options: MockOptions,
  streams: TerminalStreams,
  until: Promise<unknown>,
  started?: (mock: MockProvider) => void,
): Promise<number> {
  const providers = (options.provider?.length ? options.provider : ['openai']).map((name) => {
    if (!isProviderKey(name))
      throw new CommandFailure(`unknown provider "${name}" (one of ${PROVIDERS.join(', ')})`);
    return name;
  });
  let port: number | undefined;
  if (options.port !== undefined) {
    port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new CommandFailure(`--port ${options.port} is not a port`);
  }
  const scripts = options.script === undefined ? {} : readScripts(options.script, providers);
  let mock: MockProvider;
  try {
    mock = await startMockProvider({
      providers,
      port,
      scripts,
      onRequest:
        options.quiet === true
          ? undefined
          : (request) =>
              streams.stderr.write(
                // Wrapped on a terminal; one line per request into a pipe or file, for grep.
                logLine(
                  request,
                  streams.stderr.isTTY === true
                    ? terminalWidth(streams.stderr, streams.environment)
                    : Number.POSITIVE_INFINITY,
                ),
              ),
    });
  } catch (error) {
    throw new CommandFailure(`cannot start the mock: ${(error as Error).message}`, 1);
  }
  try {
    streams.stdout.write(`llm-mock listening on ${mock.origin} (HTTP/1.1 and h2c)\n`);
    for (const provider of providers) {
      // With one provider the paths also answer without the provider prefix: print the plain URL.
      const url =
        providers.length === 1 ? mock.url(provider).replace(`/${provider}`, '') : mock.url(provider);
      streams.stdout.write(`  ${provider.padEnd(12)} base URL ${url}\n`);
    }
    started?.(mock);
    await until;
  } finally {
    await mock.close();
  }
  const result = mock.verdict();
  const count = mock.requests().length;
  streams.stdout.write(
    result.ok
      ? `\nverdict: the client kept the retry contract (${count} request${count === 1 ? '' : 's'})\n`
      : `\n${result.message}\n`,
  );
  return result.ok || options.strict !== true ? 0 : 1;
}
