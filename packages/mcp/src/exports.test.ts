import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry from './index.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/mcp', () => {
    expect(exportList(entry, new URL('./index.ts', import.meta.url))).toEqual({
      values: [
        'JSON_RPC_ERROR_CODES',
        'MCP_REPORT_META_KEY',
        'callToolForModel',
        'classifyMcpFailure',
        'decisionFor',
        'faultlineToolHandler',
        'mcpExtractor',
        'toolErrorResult',
      ],
      types: [
        'CallToolForModelOptions',
        'ClassifyMcpFailureOptions',
        'McpDecision',
        'McpFailure',
        'McpToolCaller',
        'McpToolDescription',
        'McpToolResult',
        'ToolErrorResultOptions',
      ],
    });
  });
});
