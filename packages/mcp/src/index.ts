// MCP tool calls decided by faultline: the client's failures classified into an agent's decision
// and an envelope the model reads; a tool handler's failures answered as the right MCP result.
export {
  type CallToolForModelOptions,
  callToolForModel,
  type McpToolCaller,
} from './call-tool.ts';
export {
  type ClassifyMcpFailureOptions,
  classifyMcpFailure,
  decisionFor,
  JSON_RPC_ERROR_CODES,
  MCP_REPORT_META_KEY,
  type McpDecision,
  type McpFailure,
  type McpToolDescription,
  type McpToolResult,
  mcpExtractor,
} from './mcp-failure.ts';
export {
  faultlineToolHandler,
  type ToolErrorResultOptions,
  toolErrorResult,
} from './tool-handler.ts';
