import type { Classification, FailureReason, NextStep, ProviderErrorMetadata } from '@faultline/classify';
import {
  classificationFor,
  constructorName,
  defineExtractor,
  inspectTransportError,
  messageOf,
  parseClassification,
  safeGet,
} from '@faultline/classify/toolkit';
import {
  classifyError,
  type ErrorReport,
  FaultlineError,
  toDict,
  toErrorReport,
  toolResultFor,
} from '@faultline/render';
import { checkOptionKeys, safeFromDict } from '@faultline/render/toolkit';

/**
 * What an agent does with a failed MCP call: `retry` the same call (after `retryAfterSeconds`),
 * `change_arguments` (the call as the model wrote it can never pass), `tell_model` (give up on this
 * call: the model reads the envelope and chooses another way), `stop` (the caller cancelled).
 */
export type McpDecision = 'retry' | 'change_arguments' | 'tell_model' | 'stop';

/** The JSON-RPC error codes of the MCP SDK (`ErrorCode`), named here so no import of the SDK is needed. */
export const JSON_RPC_ERROR_CODES = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ConnectionClosed: -32000,
  RequestTimeout: -32001,
  UrlElicitationRequired: -32042,
} as const;

/** The `_meta` key under which a faultline tool result carries its report (scrubbed), for a client to read. */
export const MCP_REPORT_META_KEY = 'dev.faultline/error-report';

/** The tool a call went to, as `client.listTools()` lists it: its annotations say whether a replay is safe. */
export interface McpToolDescription {
  readonly name?: string | undefined;
  readonly annotations?:
    | { readonly readOnlyHint?: boolean | undefined; readonly idempotentHint?: boolean | undefined }
    | undefined;
}

export interface ClassifyMcpFailureOptions {
  /** The signal the call was made with: when it has fired, the failure is the caller's (`stop`). */
  readonly signal?: AbortSignal | undefined;
  /** Repeating the call is safe (no side effect, or the same effect twice). Default: read from `tool`'s annotations. */
  readonly idempotent?: boolean | undefined;
  /** The tool called: `readOnlyHint` or `idempotentHint` make an interrupted call safe to replay. */
  readonly tool?: McpToolDescription | undefined;
  /** Clock (epoch ms, or a function returning it), for the report's `retryableAt`. */
  readonly now?: number | (() => number) | undefined;
}

const CLASSIFY_MCP_FAILURE_OPTION_KEYS = {
  signal: true,
  idempotent: true,
  tool: true,
  now: true,
} as const satisfies Record<keyof ClassifyMcpFailureOptions, true>;

/** An MCP tool result (`CallToolResult`): the shape this package writes and reads. */
export interface McpToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export interface McpFailure {
  readonly decision: McpDecision;
  /** The classified error (its `cause` is what the SDK threw, or the tool result). */
  readonly error: FaultlineError;
  readonly report: ErrorReport;
  /** The JSON-RPC code the failure carried, when it carried one. */
  readonly jsonRpcCode?: number;
  /** The tool result to hand the model in place of the failed call: `isError`, the envelope as text. */
  readonly result: McpToolResult;
}

/**
 * The agent's decision, from the classification's next step: one home for the mapping, so the
 * decision never disagrees with the report it comes with.
 */
export function decisionFor(nextStep: NextStep): McpDecision {
  switch (nextStep) {
    case 'retry':
      return 'retry';
    case 'compress':
    case 'change_input':
      return 'change_arguments';
    case 'stop':
      return 'stop';
    default:
      // retry_if_idempotent (not declared idempotent), fallback, fix_configuration, report_bug:
      // this call will not pass by repeating it; the model decides what to do instead.
      return 'tell_model';
  }
}

/**
 * The JSON-RPC codes whose meaning is fixed by the protocol, and the reason each is. The
 * interrupted ones (the request was delivered and its answer never came) go through classify's
 * own transport rules instead, and the internal error through its rules for a 500 (below).
 * docs/contributing/contracts.md says why each is what it is.
 */
const REASON_BY_CODE: ReadonlyMap<number, FailureReason> = new Map<number, FailureReason>([
  // The server could not read what this client sent as a JSON-RPC request: the two ends at this
  // address do not speak the same protocol (a proxy rewriting the body, a wrong endpoint, a session
  // the server does not hold, a version apart). The server says it did not run the call; the same
  // request fails the same way, and no argument the model changes is at fault: a configuration a
  // person fixes, as a base URL that reaches the wrong thing.
  [JSON_RPC_ERROR_CODES.ParseError, 'endpoint'],
  [JSON_RPC_ERROR_CODES.InvalidRequest, 'endpoint'],
  // The server serves no such method: a wrong path, as an HTTP 404 that names no model.
  [JSON_RPC_ERROR_CODES.MethodNotFound, 'not_found'],
  // The arguments (or the tool's name, in the SDK's McpServer) do not fit the tool's schema.
  [JSON_RPC_ERROR_CODES.InvalidParams, 'invalid_request'],
  // The server needs a person to open a URL (an authorisation) before the call can pass.
  [JSON_RPC_ERROR_CODES.UrlElicitationRequired, 'auth'],
]);

const PROTOCOL_DISAGREEMENT =
  "The MCP server could not read the request this client sent. Check the server URL or command, any proxy between them, the session, and both sides' protocol versions.";

/** Advice for a person where the taxonomy row's own (written for a provider's host) would mislead. */
const DETAIL_BY_CODE: ReadonlyMap<number, string> = new Map<number, string>([
  [JSON_RPC_ERROR_CODES.ParseError, PROTOCOL_DISAGREEMENT],
  [JSON_RPC_ERROR_CODES.InvalidRequest, PROTOCOL_DISAGREEMENT],
  [
    JSON_RPC_ERROR_CODES.MethodNotFound,
    'The MCP server does not serve this method. Check that the server supports it (its capabilities) and its version.',
  ],
]);

// The SDK's McpServer answers a failed call (unknown tool, invalid arguments, a handler's McpError)
// as an `isError` result whose text is the McpError's message: `MCP error <code>: <message>`.
const SDK_ERROR_TEXT = /^MCP error (-?\d{1,6}): /;

function jsonRpcCodeOf(error: unknown): number | undefined {
  const code = safeGet(error, 'code');
  if (typeof code !== 'number' || !Number.isInteger(code)) return undefined;
  const name = safeGet(error, 'name');
  if (name === 'McpError' || SDK_ERROR_TEXT.test(messageOf(error, 64))) return code;
  return undefined;
}

// The codes a server's JSON-RPC error quoted in an HTTP answer can carry whose meaning does not
// depend on the server: its own codes (-32000 and below) mean what each server makes them mean.
const QUOTED_CODES: ReadonlySet<number> = new Set([
  JSON_RPC_ERROR_CODES.ParseError,
  JSON_RPC_ERROR_CODES.InvalidRequest,
  JSON_RPC_ERROR_CODES.MethodNotFound,
  JSON_RPC_ERROR_CODES.InvalidParams,
]);

/** The JSON-RPC error a streamable HTTP server answered an HTTP request with. */
interface QuotedJsonRpcError {
  readonly status: number;
  readonly code: number;
  /** `null` when the server answered before it read a JSON-RPC request out of the HTTP request. */
  readonly id: unknown;
}

/**
 * The JSON-RPC error a streamable HTTP server sent with an error status: the SDK's
 * StreamableHTTPError keeps the body only in its message (`Error POSTing to endpoint: <body>`) and
 * the status as its `code`. The protocol's code says more than the status (a 400 that is a parse
 * error is not the model's arguments), as a relay's quoted error says more than the relay's status.
 */
function quotedJsonRpcErrorOf(error: unknown): QuotedJsonRpcError | undefined {
  const status = safeGet(error, 'code');
  if (
    typeof status !== 'number' ||
    (constructorName(error) !== 'StreamableHTTPError' &&
      !messageOf(error, 64).startsWith('Streamable HTTP error: '))
  )
    return undefined;
  const message = messageOf(error, 16_384);
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(message.slice(start));
  } catch {
    return undefined;
  }
  const code = safeGet(safeGet(body, 'error'), 'code');
  if (safeGet(body, 'jsonrpc') !== '2.0' || typeof code !== 'number' || !Number.isInteger(code))
    return undefined;
  return { status, code, id: safeGet(body, 'id') };
}

// The statuses with which a streamable HTTP server refuses how a request was carried (its body,
// its Accept or Content-Type, its session header, its protocol version) rather than what it asks.
const TRANSPORT_REFUSALS: ReadonlySet<number> = new Set([400, 406, 415]);

/**
 * A server's refusal of how this client carried the request, not of the call: the error's id is
 * null (the server answered before reading a JSON-RPC request out of the HTTP request; the SDK's
 * server says "Bad Request: Mcp-Session-Id header is required", "Server not initialized",
 * "Unsupported protocol version", "Not Acceptable: ..." so) with a status that refuses the request's
 * form. The same protocol disagreement as -32700/-32600, under a code of the server's own.
 */
function isTransportRefusal(quoted: QuotedJsonRpcError): boolean {
  return quoted.id === null && TRANSPORT_REFUSALS.has(quoted.status);
}

function textOf(result: unknown): string {
  const content = safeGet(result, 'content');
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content.slice(0, 20)) {
    const text = safeGet(block, 'text');
    if (safeGet(block, 'type') === 'text' && typeof text === 'string') parts.push(text.slice(0, 4096));
  }
  return parts.join('\n');
}

function isToolResult(value: unknown): boolean {
  return safeGet(value, 'isError') === true && Array.isArray(safeGet(value, 'content'));
}

/**
 * The MCP client's transport failures as metadata, for classify's own rules: the streamable HTTP
 * and SSE transports' errors carry the HTTP status (or -1 for an answer that is not JSON or SSE);
 * the SDK's `UnauthorizedError` means its auth provider could not authorise; a fetch that failed
 * is read by its cause chain like any other transport error.
 */
export const mcpExtractor = defineExtractor({
  provider: 'mcp',
  extract(error, context): ProviderErrorMetadata | undefined {
    const message = messageOf(error, 2000);
    const type = constructorName(error);
    const code = safeGet(error, 'code');
    const transport =
      type === 'StreamableHTTPError' || message.startsWith('Streamable HTTP error: ')
        ? 'StreamableHTTPError'
        : type === 'SseError' || message.startsWith('SSE error: ')
          ? 'SseError'
          : undefined;
    if (transport !== undefined && typeof code === 'number' && code >= 400 && code <= 599)
      return { provider: 'mcp', sdkErrorType: transport, message, origin: 'http', statusCode: code };
    if (transport === 'StreamableHTTPError' && code === -1)
      return { provider: 'mcp', sdkErrorType: transport, message, origin: 'malformed_response' };
    // The SDK's Protocol rejects a request made once its transport has closed (the server exited,
    // the client was closed) with this message: the request was never sent.
    if (message === 'Not connected')
      return { provider: 'mcp', sdkErrorType: type, message, origin: 'network', networkPhase: 'connect' };
    if (type === 'UnauthorizedError')
      return { provider: 'mcp', sdkErrorType: type, message, origin: 'http', statusCode: 401 };
    const network = inspectTransportError(error, context?.signal);
    if (network !== undefined) return { provider: 'mcp', sdkErrorType: type, ...network };
    return undefined;
  },
});

function idempotentOf(options: ClassifyMcpFailureOptions): boolean | undefined {
  if (options.idempotent !== undefined) return options.idempotent;
  const annotations = safeGet(options.tool, 'annotations');
  if (safeGet(annotations, 'readOnlyHint') === true || safeGet(annotations, 'idempotentHint') === true)
    return true;
  return undefined;
}

/** A tool result written by {@link toolErrorResult}: the server's report, classified at its source. */
function errorFromServerReport(result: unknown, idempotent: boolean | undefined): FaultlineError | undefined {
  const parsed = safeFromDict(safeGet(safeGet(result, '_meta'), MCP_REPORT_META_KEY));
  if (!parsed.success) return undefined;
  const report = parsed.data;
  const retryable = report.retryable || (report.retryOnlyIfIdempotent && idempotent === true);
  const classification = parseClassification({
    category: report.category,
    reason: report.reason,
    retryable,
    userAction: report.userAction,
    recovery: report.recovery,
    domain: report.domain,
    httpStatus: report.httpStatus,
    nextStep: retryable && report.nextStep === 'retry_if_idempotent' ? 'retry' : report.nextStep,
    retryAfterSeconds: report.retryAfterSeconds,
    callerAborted: false,
    overridden: false,
    decidedBy: report.decidedBy,
  });
  if (classification === undefined) return undefined;
  const metadata: ProviderErrorMetadata = {
    provider: report.provider,
    message: report.message,
    origin: 'unknown',
  };
  const status = report.providerMetadata.statusCode;
  if (status !== undefined) metadata.statusCode = status;
  return new FaultlineError(report.message, {
    cause: result,
    classification,
    metadata,
    model: report.model ?? undefined,
    operation: report.operation,
  });
}

function assigned(
  reason: FailureReason,
  evidence: string,
  message: string,
  cause: unknown,
  idempotent: boolean | undefined,
  extras: { readonly code?: number; readonly sdkErrorType?: string; readonly detail?: string } = {},
): FaultlineError {
  const classification: Classification = classificationFor(reason, {
    idempotent,
    userActionDetail: extras.detail,
    decidedBy: { rule: 'assigned', evidence },
  });
  const metadata: ProviderErrorMetadata = { provider: 'mcp', message, origin: 'unknown' };
  if (extras.sdkErrorType !== undefined) metadata.sdkErrorType = extras.sdkErrorType;
  if (extras.code !== undefined) metadata.providerCode = String(extras.code);
  return new FaultlineError(message, { cause, classification, metadata });
}

function classifyByCode(
  code: number,
  message: string,
  cause: unknown,
  options: ClassifyMcpFailureOptions,
  idempotent: boolean | undefined,
): FaultlineError {
  const reason = REASON_BY_CODE.get(code);
  if (reason !== undefined)
    return assigned(reason, `JSON-RPC error ${code}`, message, cause, idempotent, {
      code,
      sdkErrorType: 'McpError',
      detail: DETAIL_BY_CODE.get(code),
    });
  const base = { provider: 'mcp', sdkErrorType: 'McpError', providerCode: String(code), message };
  // The client's own timeout, or the connection closing, while the call was pending: the request
  // was delivered and its answer never came, so the tool may have run. Classify's transport rules
  // make that `interrupted`: repeated only when the call is idempotent.
  const metadata: ProviderErrorMetadata =
    code === JSON_RPC_ERROR_CODES.RequestTimeout
      ? { ...base, origin: 'timeout', networkPhase: 'response_body' }
      : code === JSON_RPC_ERROR_CODES.ConnectionClosed
        ? { ...base, origin: 'network', networkPhase: 'response_body' }
        : code === JSON_RPC_ERROR_CODES.InternalError
          ? // The protocol's 500: the server failed handling the call, unless its words name a cause
            // that a retry cannot fix (a rejected upstream key, arguments that fail validation), as
            // words win over a provider's 5xx.
            { ...base, origin: 'http', statusCode: 500 }
          : // A code of the server's own: its words decide, as a provider's would without a status.
            { ...base, origin: 'http' };
  return classifyError(cause, {
    extractors: [defineExtractor({ provider: 'mcp', extract: () => metadata })],
    idempotent,
    now: options.now,
  });
}

// The codes Node gives a child process it could not start: the command is not installed, not on
// PATH, or not executable.
const SPAWN_CODES: ReadonlySet<string> = new Set(['ENOENT', 'EACCES', 'ENOTDIR', 'EPERM']);

/** `spawn <code>` when the stdio transport could not start the server's command. */
function spawnFailureOf(error: unknown): string | undefined {
  const syscall = safeGet(error, 'syscall');
  const code = safeGet(error, 'code');
  if (typeof syscall !== 'string' || !syscall.startsWith('spawn')) return undefined;
  return typeof code === 'string' && SPAWN_CODES.has(code) ? `spawn ${code}` : undefined;
}

const SPAWN_DETAIL =
  'The MCP server command could not be started. Check that it is installed, on PATH and executable, and the arguments that launch it.';

/** The JSON-RPC code a thrown value carries: an McpError's, or one a server quoted in an HTTP answer. */
function thrownCodeOf(error: unknown): number | undefined {
  const code = jsonRpcCodeOf(error);
  if (code !== undefined) return code;
  const quoted = quotedJsonRpcErrorOf(error);
  return quoted !== undefined && (QUOTED_CODES.has(quoted.code) || isTransportRefusal(quoted))
    ? quoted.code
    : undefined;
}

function classifyThrown(error: unknown, options: ClassifyMcpFailureOptions, idempotent: boolean | undefined) {
  const message = messageOf(error, 2000);
  const code = jsonRpcCodeOf(error);
  if (code !== undefined) return classifyByCode(code, message, error, options, idempotent);
  const quoted = quotedJsonRpcErrorOf(error);
  if (quoted !== undefined && QUOTED_CODES.has(quoted.code))
    return classifyByCode(quoted.code, message, error, options, idempotent);
  if (quoted !== undefined && isTransportRefusal(quoted))
    return assigned(
      'endpoint',
      `status ${quoted.status}, JSON-RPC error ${quoted.code} (id null)`,
      message,
      error,
      idempotent,
      { code: quoted.code, sdkErrorType: 'StreamableHTTPError', detail: PROTOCOL_DISAGREEMENT },
    );
  // A command that cannot be started is a configuration a person fixes, as a base URL naming no host.
  const spawnFailure = spawnFailureOf(error);
  if (spawnFailure !== undefined)
    return assigned('endpoint', spawnFailure, message, error, idempotent, {
      sdkErrorType: constructorName(error),
      detail: SPAWN_DETAIL,
    });
  // What the client threw reading the server's message (a stdio line, an HTTP body) that is not
  // JSON, or not a JSON-RPC message or result the SDK's schemas accept (its ZodError): the server's
  // answer could not be read. Classify's rule for an unreadable answer decides, as for a provider's
  // body. Only client failures come here; a tool's own SyntaxError or ZodError is a bug.
  const type = constructorName(error);
  if ((type === 'SyntaxError' && message.includes('JSON')) || type === 'ZodError')
    return classifyError(error, {
      extractors: [
        defineExtractor({
          provider: 'mcp',
          extract: () => ({
            provider: 'mcp',
            sdkErrorType: type,
            message,
            origin: 'malformed_response',
          }),
        }),
      ],
      idempotent,
      now: options.now,
    });
  return classifyError(error, {
    extractors: [mcpExtractor],
    signal: options.signal,
    idempotent,
    now: options.now,
  });
}

function classifyResult(
  result: unknown,
  options: ClassifyMcpFailureOptions,
  idempotent: boolean | undefined,
) {
  const fromServer = errorFromServerReport(result, idempotent);
  if (fromServer !== undefined) return fromServer;
  const text = textOf(result);
  const sdkCode = SDK_ERROR_TEXT.exec(text);
  if (sdkCode !== null) return classifyByCode(Number(sdkCode[1]), text, result, options, idempotent);
  // A tool that failed and said only words: the server's own answer, read as a provider's error
  // body without a status (a rate limit, an overload, a spent allowance, a malformed call), else
  // `unknown`.
  return classifyError(result, {
    extractors: [
      defineExtractor({
        provider: 'mcp',
        extract: () => ({
          provider: 'mcp',
          message: text || 'The tool failed without saying why.',
          origin: 'http',
        }),
      }),
    ],
    idempotent,
    now: options.now,
  });
}

/**
 * The envelope a model reads in place of the failed call: an `isError` tool result whose text is
 * the wire form (`toolResultFor`'s content: reason, category, scrubbed detail, next step, wait)
 * with the agent's decision. Scrubbed: a tool result goes into a model's context.
 */
export function envelopeFor(report: ErrorReport, decision: McpDecision): McpToolResult {
  const wire = JSON.parse(toolResultFor(report).content) as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify({ ...wire, decision }) }], isError: true };
}

/**
 * Classifies what an MCP call ended with: anything `client.callTool()` / `client.request()` threw
 * (a JSON-RPC error, the SDK's request timeout, the connection closing, a transport error), or an
 * `isError` tool result (with the server's faultline report when it sent one). Total: any value
 * gets a decision; only an unknown option key is a TypeError at the call.
 */
export function classifyMcpFailure(failure: unknown, options: ClassifyMcpFailureOptions = {}): McpFailure {
  checkOptionKeys('classifyMcpFailure', options, CLASSIFY_MCP_FAILURE_OPTION_KEYS);
  const idempotent = idempotentOf(options);
  let error: FaultlineError;
  let jsonRpcCode: number | undefined;
  try {
    if (safeGet(options.signal, 'aborted') === true) {
      // The SDK rejects a cancelled request with an McpError of its own: who fired decides.
      error = classifyError(safeGet(options.signal, 'reason'), { signal: options.signal, now: options.now });
    } else if (isToolResult(failure)) {
      error = classifyResult(failure, options, idempotent);
      const code = SDK_ERROR_TEXT.exec(textOf(failure));
      if (code !== null) jsonRpcCode = Number(code[1]);
    } else {
      error = classifyThrown(failure, options, idempotent);
      jsonRpcCode = thrownCodeOf(failure);
    }
  } catch {
    error = new FaultlineError('The MCP failure could not be read.', { cause: failure });
  }
  const report = toErrorReport(error);
  const decision = decisionFor(report.nextStep);
  const failureOf: McpFailure = { decision, error, report, result: envelopeFor(report, decision) };
  return jsonRpcCode === undefined ? failureOf : { ...failureOf, jsonRpcCode };
}

/** The report as a tool result's `_meta` carries it: scrubbed, a plain JSON object. */
export function reportMeta(report: ErrorReport): Record<string, unknown> {
  return { [MCP_REPORT_META_KEY]: toDict(report, { disclosure: 'scrubbed' }) };
}
