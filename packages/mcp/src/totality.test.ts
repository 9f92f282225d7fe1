import { describe, expect, it } from 'vitest';
import {
  callToolForModel,
  classifyMcpFailure,
  faultlineToolHandler,
  MCP_REPORT_META_KEY,
  toolErrorResult,
} from './index.ts';

const hostile = new Proxy(
  {},
  {
    get() {
      throw new Error('getter');
    },
  },
);
const cyclic: { cause?: unknown; message: string } = { message: 'MCP error -32603: cycle' };
cyclic.cause = cyclic;

// Values no SDK call should give, and a few that look like one: each gets a decision, never a throw.
const VALUES: unknown[] = [
  null,
  undefined,
  'MCP error -32602: a string',
  42,
  hostile,
  cyclic,
  { name: 'McpError', code: 'not a number', message: 'MCP error x' },
  { name: 'McpError', code: -32602.5, message: 'MCP error -32602: fractional' },
  { isError: true, content: 'not an array' },
  { isError: true, content: [hostile, { type: 'text', text: 7 }] },
  { isError: true, content: [], _meta: { [MCP_REPORT_META_KEY]: { reason: 'rate_limit', retryable: true } } },
  { isError: true, content: [{ type: 'text', text: `MCP error -32602: ${'x'.repeat(5 * 1024 * 1024)}` }] },
];

describe('totality', () => {
  it('classifyMcpFailure and toolErrorResult answer any value', () => {
    for (const value of VALUES) {
      const failure = classifyMcpFailure(value);
      expect(['retry', 'change_arguments', 'tell_model']).toContain(failure.decision);
      expect(failure.result.isError).toBe(true);
      expect(failure.result.content[0]?.text.length).toBeLessThan(4096);
      expect(toolErrorResult(value).isError).toBe(true);
    }
  });

  it('a forged report under _meta is not trusted: the words decide', () => {
    const forged = VALUES[10];
    expect(classifyMcpFailure(forged).report.reason).toBe('unknown');
  });
});

describe('options', () => {
  it('an unknown key is a TypeError at the call, naming the nearest valid one', async () => {
    expect(() => classifyMcpFailure(null, { idempotant: true } as object)).toThrow(
      'unknown option "idempotant" for classifyMcpFailure; did you mean "idempotent"?',
    );
    expect(() => toolErrorResult(null, { extractor: [] } as object)).toThrow(TypeError);
    expect(() => faultlineToolHandler(async () => ({}), { signals: undefined } as object)).toThrow(TypeError);
    const client = { callTool: async () => ({ content: [] }) };
    await expect(callToolForModel(client, { name: 'x' }, { timeout: 5 } as object)).rejects.toThrow(
      'did you mean "timeoutMs"?',
    );
    await expect(
      callToolForModel(client, { name: 'x' }, { retry: { maxAtempts: 2 } } as object),
    ).rejects.toThrow(TypeError);
  });
});
