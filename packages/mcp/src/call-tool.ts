import { type RetryOptions, toErrorReport, withClassifiedErrors } from '@faultline/render';
import { checkOptionKeys, RETRY_OPTION_KEYS } from '@faultline/render/toolkit';
import {
  classifyMcpFailure,
  decisionFor,
  envelopeFor,
  type McpFailure,
  type McpToolDescription,
  type McpToolResult,
  mcpExtractor,
} from './mcp-failure.ts';

/** The part of the SDK's `Client` this needs (structural: any SDK major whose `callTool` takes these). */
export interface McpToolCaller<Result> {
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<Result>;
}

export interface CallToolForModelOptions {
  /** The tool as `listTools()` lists it: `readOnlyHint`/`idempotentHint` allow replaying an interrupted call. */
  readonly tool?: McpToolDescription | undefined;
  /** Repeating the call is safe; overrides the tool's annotations. */
  readonly idempotent?: boolean | undefined;
  /** The caller's signal: when it fires, its reason is thrown untouched. */
  readonly signal?: AbortSignal | undefined;
  /** The SDK's request timeout per attempt (ms); the SDK's default (60 s) when absent. */
  readonly timeoutMs?: number | undefined;
  /** Retries of a `retry` decision: render's retry options (3 attempts in all by default), `false` for none. */
  readonly retry?: false | RetryOptions | undefined;
}

const CALL_TOOL_FOR_MODEL_OPTION_KEYS = {
  tool: true,
  idempotent: true,
  signal: true,
  timeoutMs: true,
  retry: true,
} as const satisfies Record<keyof CallToolForModelOptions, true>;

/**
 * Calls an MCP tool for a model: the tool's own result when it succeeds; a failure the agent may
 * retry is retried (after the server's or upstream's wait, within render's retry options); any
 * other failure, or one that outlived its retries, comes back as the envelope the model reads
 * (`isError`, its decision: `change_arguments` or `tell_model`). Only the caller's abort throws.
 */
export async function callToolForModel<Result>(
  client: McpToolCaller<Result>,
  params: { name: string; arguments?: Record<string, unknown> },
  options: CallToolForModelOptions = {},
): Promise<Result | McpToolResult> {
  checkOptionKeys('callToolForModel', options, CALL_TOOL_FOR_MODEL_OPTION_KEYS);
  checkOptionKeys('callToolForModel', options.retry, RETRY_OPTION_KEYS, 'retry');
  const { tool, idempotent, signal, timeoutMs, retry } = options;
  try {
    return await withClassifiedErrors(
      async ({ signal: attemptSignal }) => {
        let failure: McpFailure;
        try {
          const requestOptions: { signal?: AbortSignal; timeout?: number } = {};
          if (attemptSignal !== undefined) requestOptions.signal = attemptSignal;
          if (timeoutMs !== undefined) requestOptions.timeout = timeoutMs;
          const result = await client.callTool(params, undefined, requestOptions);
          if ((result as { isError?: unknown } | null)?.isError !== true) return result;
          failure = classifyMcpFailure(result, { tool, idempotent });
        } catch (error) {
          // The SDK rejects a cancelled request with an McpError of its own: the signal's reason
          // tells the retry loop who fired (the caller, or its own deadline).
          if (attemptSignal?.aborted === true) throw attemptSignal.reason;
          failure = classifyMcpFailure(error, { tool, idempotent });
        }
        throw failure.error;
      },
      {
        extractors: [mcpExtractor],
        retry: retry ?? {},
        signal,
        idempotent,
        provider: 'mcp',
        operation: `tools/call ${params.name}`,
      },
    );
  } catch (error) {
    // The caller's abort leaves as withClassifiedErrors threw it: untouched, never an envelope.
    if (signal?.aborted === true) throw error;
    const report = toErrorReport(error);
    return envelopeFor(report, decisionFor(report.nextStep));
  }
}
