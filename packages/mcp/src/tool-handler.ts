import type { Extractor } from '@faultline/classify';
import { safeGet } from '@faultline/classify/toolkit';
import { classifyError, FaultlineError, toErrorReport } from '@faultline/render';
import { checkOptionKeys } from '@faultline/render/toolkit';
import {
  decisionFor,
  envelopeFor,
  JSON_RPC_ERROR_CODES,
  type McpToolResult,
  mcpExtractor,
  reportMeta,
} from './mcp-failure.ts';

export interface ToolErrorResultOptions {
  /** Extractors for what the tool called (e.g. `openaiExtractor`), for an error that is not yet a FaultlineError. */
  readonly extractors?: readonly Extractor[] | undefined;
  /** The request's signal (`extra.signal`): a failure after it fired is the client's cancellation. */
  readonly signal?: AbortSignal | undefined;
}

const TOOL_ERROR_RESULT_OPTION_KEYS = { extractors: true, signal: true } as const satisfies Record<
  keyof ToolErrorResultOptions,
  true
>;

/**
 * The MCP tool result for a failure inside a tool handler: `isError: true`, the envelope the model
 * acts on as its text (reason, category, scrubbed detail, next step, wait, decision), and the
 * scrubbed report under `_meta` for a client running faultline, which then decides on the
 * classification made here, at the source. A FaultlineError keeps its classification (an upstream
 * model's rate limit stays a rate limit with its Retry-After); any other value is classified with
 * `extractors`. Total: never throws (only an unknown option key is a TypeError).
 */
export function toolErrorResult(error: unknown, options: ToolErrorResultOptions = {}): McpToolResult {
  checkOptionKeys('toolErrorResult', options, TOOL_ERROR_RESULT_OPTION_KEYS);
  const classified = FaultlineError.isInstance(error)
    ? error
    : classifyError(error, {
        extractors: [...(options.extractors ?? []), mcpExtractor],
        signal: options.signal,
      });
  const report = toErrorReport(classified);
  return { ...envelopeFor(report, decisionFor(report.nextStep)), _meta: reportMeta(report) };
}

/**
 * Wraps an `McpServer` tool handler: what it throws is answered with {@link toolErrorResult}
 * instead of the SDK's default (the raw message as text, which can carry a provider's words, a
 * key or an account id, and says nothing a model can act on). The SDK's URL-elicitation error is
 * re-thrown: the protocol answers it as a JSON-RPC error the client acts on.
 */
export function faultlineToolHandler<Args extends unknown[], Result>(
  handler: (...args: Args) => Result | Promise<Result>,
  options: ToolErrorResultOptions = {},
): (...args: Args) => Promise<Result | McpToolResult> {
  checkOptionKeys('faultlineToolHandler', options, TOOL_ERROR_RESULT_OPTION_KEYS);
  return async (...args: Args) => {
    try {
      return await handler(...args);
    } catch (error) {
      if (safeGet(error, 'code') === JSON_RPC_ERROR_CODES.UrlElicitationRequired) throw error;
      // The handler's last argument is the SDK's `extra`, whose signal is the request's.
      const signal = safeGet(args[args.length - 1], 'signal');
      return toolErrorResult(error, {
        extractors: options.extractors,
        signal: signal instanceof AbortSignal ? signal : options.signal,
      });
    }
  };
}
