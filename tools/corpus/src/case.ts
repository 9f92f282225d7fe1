import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCategory, FailureReason, NextStep, TAXONOMY, UserActionKind } from '@faultline/classify';
import { DRIVEN_PROVIDERS } from '@faultline/scenario-driver';
import { type Scenario, ScenarioResponse } from '@faultline/test-fixtures';
import * as v from 'valibot';

/** `<repo>/corpus`: the field corpus (cases, floor, known disagreements, results). */
export const corpusDir: string = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'corpus');
export const casesDir: string = join(corpusDir, 'cases');

/** The SDKs the corpus plays cases through: providers.json's providers (scenario-driver drives each). */
export const CorpusSdk = v.picklist(DRIVEN_PROVIDERS);
export type CorpusSdk = v.InferOutput<typeof CorpusSdk>;

// A body or an SSE data field may be written as JSON (an object or array): it is sent as its
// JSON text. This only spares the corpus from escaping JSON inside JSON strings; a payload whose
// exact bytes matter (HTML, truncated JSON, a JSON string quoting JSON) is written as a string.
// The array first: valibot's record takes an array too (its indexes as keys), which would send
// `[{…}]` as `{"0":{…}}`.
const Payload = v.union([v.string(), v.array(v.unknown()), v.record(v.string(), v.unknown())]);
const Headers = v.record(v.string(), v.string());
const StreamEnding = v.picklist(['end', 'cut', 'stall']);
const status = v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599));

const HttpShorthand = v.object({
  status,
  headers: v.optional(Headers),
  body: Payload,
});
const SseShorthand = v.object({
  status: v.optional(status),
  headers: v.optional(Headers),
  events: v.array(v.object({ event: v.optional(v.string()), data: Payload })),
  // biome-ignore lint/suspicious/noThenProperty: the scenario contract's field name (data, never awaited)
  then: StreamEnding,
});
const AwsShorthand = v.object({
  status: v.optional(status),
  headers: v.optional(Headers),
  messages: v.array(v.object({ headers: Headers, payload: Payload })),
  // biome-ignore lint/suspicious/noThenProperty: the scenario contract's field name (data, never awaited)
  then: StreamEnding,
  cutMidMessage: v.optional(v.boolean()),
});

/**
 * What an MCP server did with a tool call (`tools/call`), played to the real MCP client
 * (`@modelcontextprotocol/sdk`) by tools/corpus/src/mcp.ts. Over stdio (a child process, the
 * transport of most hosts): `error`, the JSON-RPC error it answered (`message` as the server sent
 * it: the client adds its own `MCP error <code>: `); `result`, the tool result it answered
 * (`isError`); `then`, what the process did instead of answering (`exit` mid-call, or
 * `never-answer`, which the client's timeout ends). Over streamable HTTP: `http`, the HTTP answer to
 * the call's POST.
 */
const McpShorthand = v.pipe(
  v.strictObject({
    error: v.optional(
      v.strictObject({
        code: v.pipe(v.number(), v.safeInteger()),
        message: v.string(),
        data: v.optional(v.unknown()),
      }),
    ),
    result: v.optional(v.record(v.string(), v.unknown())),
    // biome-ignore lint/suspicious/noThenProperty: named as the scenario contract's ending (data, never awaited)
    then: v.optional(v.picklist(['exit', 'never-answer'])),
    http: v.optional(HttpShorthand),
  }),
  v.check(
    (value) => [value.error, value.result, value.then, value.http].filter(Boolean).length === 1,
    'an mcp case has exactly one of error, result, then, http',
  ),
);
export type McpAnswer = v.InferOutput<typeof McpShorthand>;

/** The corpus's MCP cases are played through the MCP client, not a provider's SDK. */
export const MCP_SDK = 'mcp' as const;

/** What the classification must be, under docs/contributing/design.md's taxonomy and signal rules. */
export const CaseLabel = v.object({
  category: ErrorCategory,
  reason: FailureReason,
  retryable: v.boolean(),
  /** Defaults to the reason's taxonomy row (set it where the row has a choice, e.g. contact_support). */
  userAction: v.optional(UserActionKind),
  /** Defaults to the reason's taxonomy row. */
  nextStep: v.optional(NextStep),
});
export type CaseLabel = v.InferOutput<typeof CaseLabel>;

export const CorpusCase = v.pipe(
  v.strictObject({
    /** Unique in its file; the case id is `<file>/<name>`. */
    name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9._-]*$/)),
    /** The SDK that plays it; defaults to the file's `sdk`. */
    sdk: v.optional(v.union([CorpusSdk, v.literal(MCP_SDK)])),
    /** As in scenarios: `vertex` (google-genai), `invoke-model`/`converse-stream` (bedrock). */
    api: v.optional(v.string()),
    stream: v.optional(v.boolean()),
    /** Where the payload was taken from: a doc URL, `<owner>/<repo>:<path>` of an SDK test, an issue/PR URL. */
    source: v.pipe(v.string(), v.minLength(8)),
    /**
     * The batch the case arrived in (`pnpm corpus --batch <name>` scores it at first sight into
     * corpus/history.json); cases from before batches were kept have none.
     */
    batch: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9._-]*$/))),
    http: v.optional(HttpShorthand),
    sse: v.optional(SseShorthand),
    aws: v.optional(AwsShorthand),
    /** Any scenario response (socket, dns-failure) as test-fixtures writes it. */
    response: v.optional(ScenarioResponse),
    /** A tool call's failure between an MCP client and server (the group's `sdk` is `mcp`). */
    mcp: v.optional(McpShorthand),
    label: CaseLabel,
    /** Why the label is what it is, where that needs reasoning. */
    note: v.optional(v.string()),
  }),
  v.check(
    (value) => [value.http, value.sse, value.aws, value.response, value.mcp].filter(Boolean).length === 1,
    'a case has exactly one of http, sse, aws, response, mcp',
  ),
);
export type CorpusCase = v.InferOutput<typeof CorpusCase>;

export const CorpusFile = v.strictObject({
  /** The provider or gateway (the file name without `.json`). */
  group: v.pipe(v.string(), v.regex(/^[a-z0-9-]+$/)),
  /** What the group is, in one line (shown nowhere but read by people). */
  description: v.string(),
  /** The SDK users play this group through (`mcp`: the MCP client, for MCP tool failures). */
  sdk: v.union([CorpusSdk, v.literal(MCP_SDK)]),
  cases: v.pipe(v.array(CorpusCase), v.minLength(1)),
});
export type CorpusFile = v.InferOutput<typeof CorpusFile>;

interface LoadedCaseCommon {
  readonly id: string;
  readonly group: string;
  readonly source: string;
  readonly batch?: string;
  readonly note?: string;
  readonly label: Required<CaseLabel>;
}

/** A provider's answer: the scenario the loopback server plays to the case's SDK. */
export interface ProviderCase extends LoadedCaseCommon {
  readonly kind: 'provider';
  readonly sdk: CorpusSdk;
  readonly scenario: Scenario;
}

/** An MCP server's answer to a tool call, played to the MCP client. */
export interface McpCase extends LoadedCaseCommon {
  readonly kind: 'mcp';
  readonly sdk: typeof MCP_SDK;
  readonly mcp: McpAnswer;
}

/** A loaded case: its id, the group it belongs to, what is played, its full label. */
export type LoadedCase = ProviderCase | McpCase;

const text = (payload: v.InferOutput<typeof Payload>): string =>
  typeof payload === 'string' ? payload : JSON.stringify(payload);

function responseOf(entry: CorpusCase): ScenarioResponse {
  if (entry.http) {
    const { status, headers, body } = entry.http;
    return { kind: 'http', status, ...(headers ? { headers } : {}), body: text(body) };
  }
  if (entry.sse) {
    const { status, headers, events } = entry.sse;
    return {
      kind: 'sse',
      ...(status === undefined ? {} : { status }),
      headers: { 'content-type': 'text/event-stream', ...headers },
      events: events.map((event) => ({
        ...(event.event ? { event: event.event } : {}),
        data: text(event.data),
      })),
      // biome-ignore lint/suspicious/noThenProperty: the scenario contract's field name
      then: entry.sse.then,
    };
  }
  if (entry.aws) {
    const { status, headers, messages, cutMidMessage } = entry.aws;
    return {
      kind: 'aws-event-stream',
      ...(status === undefined ? {} : { status }),
      ...(headers ? { headers } : {}),
      messages: messages.map((message) => ({ headers: message.headers, payload: text(message.payload) })),
      // biome-ignore lint/suspicious/noThenProperty: the scenario contract's field name
      then: entry.aws.then,
      ...(cutMidMessage === undefined ? {} : { cutMidMessage }),
    };
  }
  return entry.response as ScenarioResponse;
}

function formatIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues.map((issue) => `  - ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`).join('\n');
}

/** `data` checked against `schema`; else an Error naming `what` and every problem, each at its path. */
export function parseOrThrow<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  data: unknown,
  what: string,
): v.InferOutput<TSchema> {
  const parsed = v.safeParse(schema, data);
  if (parsed.success) return parsed.output;
  throw new Error(`${what} is invalid:\n${formatIssues(parsed.issues)}`, {
    cause: new v.ValiError(parsed.issues),
  });
}

/** Reads and validates one group file; throws an error naming the file. */
export function readCorpusFile(path: string): LoadedCase[] {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Corpus file ${path} is not readable JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const file = parseOrThrow(CorpusFile, data, `Corpus file ${path}`);
  const expectedGroup = path
    .split(/[\\/]/)
    .pop()
    ?.replace(/\.json$/, '');
  if (file.group !== expectedGroup) {
    throw new Error(`Corpus file ${path} has group "${file.group}", expected "${expectedGroup}" (its name)`);
  }
  const seen = new Set<string>();
  return file.cases.map((entry) => {
    if (seen.has(entry.name)) throw new Error(`Corpus file ${path}: case "${entry.name}" appears twice`);
    seen.add(entry.name);
    const id = `${file.group}/${entry.name}`;
    const sdk = entry.sdk ?? file.sdk;
    const row = TAXONOMY[entry.label.reason];
    if (row.category !== entry.label.category || row.retryable !== entry.label.retryable) {
      // The taxonomy ties category and retryable to the reason; a label that breaks the tie is a typo.
      throw new Error(
        `Corpus case ${id}: reason ${entry.label.reason} is ${row.category}/retryable=${row.retryable} in the taxonomy`,
      );
    }
    const label: Required<CaseLabel> = {
      ...entry.label,
      userAction: entry.label.userAction ?? row.userAction,
      nextStep: entry.label.nextStep ?? row.nextStep,
    };
    const common = {
      id,
      group: file.group,
      source: entry.source,
      ...(entry.batch ? { batch: entry.batch } : {}),
      ...(entry.note ? { note: entry.note } : {}),
      label,
    };
    if ((sdk === MCP_SDK) !== (entry.mcp !== undefined)) {
      throw new Error(`Corpus case ${id}: an mcp answer is played by the sdk "mcp", and only it`);
    }
    if (entry.mcp !== undefined) return { ...common, kind: 'mcp' as const, sdk: MCP_SDK, mcp: entry.mcp };
    const scenario: Scenario = {
      id: `corpus.${file.group}/${entry.name}`,
      provider: sdk,
      description: id,
      source: entry.source,
      ...(entry.api ? { api: entry.api } : {}),
      ...(entry.stream ? { stream: true } : {}),
      response: responseOf(entry),
      expected: {
        category: label.category,
        reason: label.reason,
        retryable: label.retryable,
        userAction: label.userAction,
        httpStatus: row.httpStatus,
      },
    };
    return { ...common, kind: 'provider' as const, sdk, scenario };
  });
}

/** Every case of the corpus (or of the named groups), sorted by id. */
export function loadCorpus(directory: string = casesDir, groups?: readonly string[]): LoadedCase[] {
  const files = readdirSync(directory)
    .filter((name) => name.endsWith('.json') && !name.startsWith('_'))
    .filter((name) => groups === undefined || groups.includes(name.replace(/\.json$/, '')))
    .sort();
  return files
    .flatMap((name) => readCorpusFile(join(directory, name)))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** `corpus/known-disagreements.json`: cases whose miss is understood; printed, not counted against the floor. */
export const KnownDisagreements = v.record(v.string(), v.pipe(v.string(), v.minLength(10)));

export function loadKnownDisagreements(directory: string = corpusDir): Record<string, string> {
  const data = JSON.parse(readFileSync(join(directory, 'known-disagreements.json'), 'utf8')) as unknown;
  return parseOrThrow(KnownDisagreements, data, 'corpus/known-disagreements.json');
}

const percent = v.pipe(v.number(), v.minValue(0), v.maxValue(100));
const FieldFloor = v.strictObject({
  decision: percent,
  reason: percent,
  userAction: percent,
  nextStep: percent,
});
export type FieldFloor = v.InferOutput<typeof FieldFloor>;

/**
 * `corpus/floor.json`: the accuracy (percent, over cases not listed as known disagreements) CI must
 * keep: the vendor SDK path's at the top level, the AI SDK's and LangChain's under their names.
 */
export const Floor = v.strictObject({
  ...FieldFloor.entries,
  $comment: v.optional(v.string()),
  'ai-sdk': FieldFloor,
  langchain: FieldFloor,
});
export type Floor = v.InferOutput<typeof Floor>;

/** The floor of one path. */
export function floorOf(floor: Floor, path: 'vendor' | 'ai-sdk' | 'langchain'): FieldFloor {
  if (path !== 'vendor') return floor[path];
  const { decision, reason, userAction, nextStep } = floor;
  return { decision, reason, userAction, nextStep };
}

export function loadFloor(directory: string = corpusDir): Floor {
  return parseOrThrow(
    Floor,
    JSON.parse(readFileSync(join(directory, 'floor.json'), 'utf8')),
    'corpus/floor.json',
  );
}
