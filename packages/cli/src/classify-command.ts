import { readFileSync } from 'node:fs';
import {
  type Explanation,
  type Extractor,
  explainClassification,
  type ProviderErrorMetadata,
} from '@faultline/classify';
import {
  defineExtractor,
  parseJsonSafely,
  readHeader,
  retryAfterFromHeaders,
  safeGet,
  safeString,
} from '@faultline/classify/toolkit';
import { startLoopbackServer } from '@faultline/llm-mock';
import {
  classifyError,
  type ErrorReport,
  exitCodeFor,
  formatMarkdown,
  formatPanel,
  toDict,
  toErrorReport,
  toWireError,
} from '@faultline/render';
import {
  type CapturedResponse,
  detectLoggedProvider,
  detectProvider,
  loggedError,
  parseHeaderLines,
  parseLogLine,
  parseStatus,
  resolveProviderName,
  responseFromLoggedError,
} from './captured-input.ts';
import {
  callProvider,
  loadAdapter,
  loadProvider,
  PROVIDER_NAMES,
  type ProviderAdapter,
  providerEntry,
  SdkNotInstalled,
} from './driver/index.ts';
import { CommandFailure, colorEnabled, type TerminalStreams, terminalWidth, wrapProse } from './terminal.ts';

export const outputFormats = ['panel', 'json', 'markdown', 'wire'] as const;
export type OutputFormat = (typeof outputFormats)[number];
export const inputFormats = ['http', 'log'] as const;
export type InputFormat = (typeof inputFormats)[number];

export interface ClassifyOptions {
  status?: string;
  header?: string[];
  bodyFile?: string;
  provider?: string;
  logLine?: string;
  inputFormat?: InputFormat;
  format?: OutputFormat;
  exitZero?: boolean;
  model?: string;
  explain?: boolean;
}

/** What the caller knows about the failed call, carried into the report. */
export interface CallContext {
  model?: string | undefined;
}

// The replay server always answers with the captured response, so the client's timeout only ends
// a hang: long enough that a busy machine's slow first call (a large SDK loads modules as it
// sends) can never turn the captured status into a timeout.
const replayTimeoutMs = 30_000;

// The metadata each report was built from, for --explain (the report itself carries no features).
const metadataOfReport = new WeakMap<ErrorReport, ProviderErrorMetadata>();

/** `toErrorReport`, remembering the FaultlineError's metadata for --explain. */
function reportOf(error: unknown): ErrorReport {
  const report = toErrorReport(error);
  const metadata = safeGet(error, 'metadata');
  if (metadata !== null && typeof metadata === 'object') {
    metadataOfReport.set(report, metadata as ProviderErrorMetadata);
  }
  return report;
}

function readBodyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = safeString(safeGet(error, 'code'));
    throw new CommandFailure(`cannot read --body-file ${path}${code === undefined ? '' : ` (${code})`}`);
  }
}

async function readStandardInput(stdin: TerminalStreams['stdin']): Promise<string> {
  if (stdin.isTTY === true) return '';
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stdin)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  } catch {
    throw new CommandFailure('cannot read standard input');
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function adapterFor(provider: string): Promise<ProviderAdapter> {
  try {
    return await loadAdapter(provider);
  } catch {
    throw new CommandFailure(`no extractor is available for provider "${provider}"`, 1);
  }
}

/** Headers the loopback server sets itself; a captured copy would contradict the replayed body. */
const transportHeaders = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'content-encoding',
]);

/**
 * Replays a captured answer to the provider's real SDK through the loopback server and classifies
 * what the SDK throws with the provider's bound `withClassifiedErrors`: the same path as a live call.
 */
export async function classifyThroughSdk(
  provider: string,
  captured: CapturedResponse,
  context: CallContext = {},
): Promise<ErrorReport | undefined> {
  const entry = providerEntry(provider);
  if (entry === undefined) throw new CommandFailure(`unknown provider "${provider}"`);
  const adapter = await adapterFor(provider);
  try {
    await loadProvider(provider);
  } catch (error) {
    if (error instanceof SdkNotInstalled) return classifyWithoutSdk(provider, adapter, captured, context);
    throw error;
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(captured.headers)) {
    if (!transportHeaders.has(name)) headers[name] = value;
  }
  if (readHeader(headers, 'content-type') === undefined && parseJsonSafely(captured.body) !== undefined) {
    headers['content-type'] = 'application/json';
  }
  const scenario = {
    response: { kind: 'http' as const, status: captured.status, headers, body: captured.body },
  };
  const server = await startLoopbackServer({ protocol: entry.protocol });
  try {
    const baseUrl = server.baseUrlFor(scenario);
    await adapter.withClassifiedErrors(
      ({ signal }) => callProvider({ provider }, baseUrl, { signal, timeoutMs: replayTimeoutMs }),
      {
        retry: false,
        ...(context.model === undefined ? {} : { model: context.model }),
      },
    );
    return undefined;
  } catch (error) {
    return reportOf(error);
  } finally {
    await server.close();
  }
}

/**
 * Without the provider's SDK installed (`@faultline/cli` does not install them), the adapter's
 * `read<Provider>HttpFailure` reads the captured answer: the same body rules its SDK extractor
 * applies, without the SDK's own message and error class.
 */
function classifyWithoutSdk(
  provider: string,
  adapter: ProviderAdapter,
  captured: CapturedResponse,
  context: CallContext,
): ErrorReport {
  const reader = Object.entries(adapter.exports).find(
    ([name, value]) => /^read[A-Za-z]*HttpFailure$/.test(name) && typeof value === 'function',
  )?.[1] as
    | ((response: { status: number; headers: unknown; body: string }) => ProviderErrorMetadata)
    | undefined;
  if (reader === undefined) {
    throw new CommandFailure(
      `the ${provider} adapter reads no raw HTTP failure, and its SDK is not installed`,
      1,
    );
  }
  const metadata = reader({ status: captured.status, headers: captured.headers, body: captured.body });
  const extractor = defineExtractor({ provider, extract: () => metadata });
  return reportOf(
    classifyError(new Error(`HTTP ${captured.status}`), { extractors: [extractor], model: context.model }),
  );
}

/** For a body no provider claims: the status, Retry-After and request id decide, as classify does. */
export function genericResponseExtractor(captured: CapturedResponse): Extractor {
  return defineExtractor({
    provider: 'unknown',
    extract(): ProviderErrorMetadata {
      const retryAfterSeconds = retryAfterFromHeaders(captured.headers);
      const requestId =
        readHeader(captured.headers, 'x-request-id') ??
        readHeader(captured.headers, 'request-id') ??
        readHeader(captured.headers, 'x-amzn-requestid');
      return {
        provider: 'unknown',
        message: `HTTP ${captured.status}`,
        origin: 'http',
        statusCode: captured.status,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
        ...(requestId === undefined ? {} : { requestId }),
      };
    },
  });
}

async function classifyResponse(
  captured: CapturedResponse,
  provider: string | undefined,
  context: CallContext,
): Promise<ErrorReport> {
  if (provider !== undefined) {
    const report = await classifyThroughSdk(provider, captured, context);
    if (report !== undefined) return report;
    throw new CommandFailure(
      `the ${provider} SDK accepted this ${captured.status} answer without an error: nothing to classify`,
    );
  }
  if (captured.status < 400) {
    throw new CommandFailure(
      `status ${captured.status} is not a failure; pass --provider for a 200 answer that carries an error`,
    );
  }
  const error = new Error(`HTTP ${captured.status}`);
  return reportOf(
    classifyError(error, { extractors: [genericResponseExtractor(captured)], model: context.model }),
  );
}

async function allExtractors(preferred: string | undefined): Promise<Extractor[]> {
  const order = [
    ...(preferred === undefined ? [] : [preferred]),
    ...PROVIDER_NAMES.filter((key) => key !== preferred),
  ];
  const extractors: Extractor[] = [];
  for (const key of order) {
    const adapter = await loadAdapter(key).catch(() => undefined);
    if (adapter !== undefined) extractors.push(adapter.extractor);
  }
  return extractors;
}

async function classifyLoggedError(
  entry: unknown,
  providerOption: string | undefined,
  context: CallContext,
): Promise<ErrorReport> {
  const error = loggedError(entry);
  const provider = providerOption ?? detectLoggedProvider(error);
  // The HTTP answer inside the serialised error, replayed to the real SDK: the most faithful path.
  const captured = responseFromLoggedError(error, provider);
  if (captured !== undefined) {
    const replayProvider = provider ?? detectProvider(parseJsonSafely(captured.body), captured.headers);
    if (replayProvider !== undefined) {
      const report = await classifyThroughSdk(replayProvider, captured, context);
      if (report !== undefined) return report;
    }
  }
  // Else the extractors read the plain object as they read a live error (transport codes, names).
  const extractors = await allExtractors(provider);
  for (const extractor of extractors) {
    let metadata: ProviderErrorMetadata | undefined;
    try {
      metadata = extractor.extract(error);
    } catch {
      metadata = undefined;
    }
    if (metadata !== undefined) {
      return reportOf(classifyError(error, { extractors: [extractor], model: context.model }));
    }
  }
  if (captured !== undefined) return classifyResponse(captured, undefined, context);
  return reportOf(classifyError(error, { model: context.model }));
}

export function renderReport(report: ErrorReport, format: OutputFormat, color: boolean, width = 80): string {
  switch (format) {
    case 'json':
      return JSON.stringify(toDict(report), null, 2);
    case 'markdown':
      return formatMarkdown(report);
    case 'wire':
      return JSON.stringify(toWireError(report));
    default:
      return formatPanel(report, { color, width });
  }
}

export async function classifyCommand(options: ClassifyOptions, streams: TerminalStreams): Promise<number> {
  const provider = options.provider === undefined ? undefined : resolveProviderName(options.provider);
  const context: CallContext = { model: options.model };
  const inputFormat: InputFormat = options.logLine !== undefined ? 'log' : (options.inputFormat ?? 'http');
  let report: ErrorReport;
  if (inputFormat === 'log') {
    if (options.status !== undefined || (options.header ?? []).length > 0) {
      throw new CommandFailure('--status and --header describe an HTTP response; a log line carries its own');
    }
    const text =
      options.logLine ??
      (options.bodyFile !== undefined
        ? readBodyFile(options.bodyFile)
        : await readStandardInput(streams.stdin));
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    if (lines.length > 1) throw new CommandFailure('give one log line at a time');
    report = await classifyLoggedError(parseLogLine(lines[0] ?? ''), provider, context);
  } else {
    if (options.status === undefined) {
      throw new CommandFailure('--status is required for an HTTP response (or give --log-line)');
    }
    const status = parseStatus(options.status);
    const headers = parseHeaderLines(options.header ?? []);
    const body =
      options.bodyFile !== undefined
        ? readBodyFile(options.bodyFile)
        : await readStandardInput(streams.stdin);
    const detected = provider ?? detectProvider(parseJsonSafely(body), headers);
    report = await classifyResponse({ status, headers, body }, detected, context);
  }
  const format: OutputFormat = options.format ?? (streams.stdout.isTTY === true ? 'panel' : 'json');
  const width = terminalWidth(streams.stdout, streams.environment);
  let output = renderReport(report, format, colorEnabled(streams.stdout, streams.environment), width);
  if (options.explain === true) {
    const explanation = explain(report);
    output =
      format === 'json'
        ? JSON.stringify(
            { report: JSON.parse(output), explanation: explanationJson(report, explanation) },
            null,
            2,
          )
        : `${output.replace(/\n$/, '')}\n\n${wrapProse(formatExplanation(report, explanation), width)}`;
  }
  streams.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
  return options.exitZero === true ? 0 : exitCodeFor(report);
}

/** What classify read to decide this report, re-read from the metadata the report was built from. */
function explain(report: ErrorReport): Explanation | undefined {
  const metadata = metadataOfReport.get(report);
  if (metadata === undefined) return undefined;
  try {
    return explainClassification(metadata);
  } catch {
    return undefined;
  }
}

function explanationJson(report: ErrorReport, explanation: Explanation | undefined): Record<string, unknown> {
  return {
    rule: report.decidedBy?.rule ?? 'assigned',
    ...(report.decidedBy?.evidence === undefined ? {} : { evidence: report.decidedBy.evidence }),
    features: explanation?.features ?? {},
  };
}

/** --explain: the rule that decided, its evidence, and every feature the rule table read. */
export function formatExplanation(report: ErrorReport, explanation: Explanation | undefined): string {
  const lines = [`decided by ${report.decidedBy?.rule ?? 'assigned'}`];
  if (report.decidedBy?.evidence !== undefined) lines.push(`evidence   ${report.decidedBy.evidence}`);
  const features = Object.entries(explanation?.features ?? {});
  if (features.length === 0) {
    lines.push('features   none read (a structured field decided)');
  } else {
    lines.push('features read, in order:');
    const width = Math.max(...features.map(([name]) => name.length));
    for (const [name, value] of features) {
      lines.push(`  ${name.padEnd(width)}  ${value === null || value === undefined ? '—' : value}`);
    }
  }
  return lines.join('\n');
}
