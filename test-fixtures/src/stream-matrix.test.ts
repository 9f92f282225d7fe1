import * as mock from '@faultline/llm-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fixtures from './index.ts';
import { drain, eventStreamFrame, installedMajors, sseFrame } from './stream-matrix.ts';

describe('the test-fixtures layer over @faultline/llm-mock', () => {
  it('re-exports the package, not a copy of it', () => {
    // What only our tests need is defined here; everything else is the package's own export.
    const ownTestHelpers = [
      'clientTimeoutFor',
      'docExamples',
      'openaiChatCompletion',
      'repoRoot',
      'serverStaysSilent',
      'stableReport',
      'takeExtractorCrashes',
    ];
    for (const [name, value] of Object.entries(fixtures)) {
      if (ownTestHelpers.includes(name)) expect(name in mock, name).toBe(false);
      else expect(value, name).toBe((mock as Record<string, unknown>)[name]);
    }
    expect(fixtures.loadScenarios('openai').length).toBeGreaterThan(0);
  });

  it('gives a short client timeout only where the server never finishes, so the timeout is what is tested', () => {
    const scenarios = fixtures.loadScenarios();
    const silent = scenarios.filter(fixtures.serverStaysSilent);
    expect(silent.length).toBeGreaterThan(0);
    // Nothing but the client's or the guard's timer can end such a call.
    for (const scenario of silent) {
      expect(['timeout', 'interrupted'], scenario.id).toContain(fixtures.expectedFor(scenario).reason);
    }
    // Where the server answers, no sub-second timer races the answer.
    for (const scenario of scenarios.filter((candidate) => !fixtures.serverStaysSilent(candidate))) {
      expect(fixtures.clientTimeoutFor(scenario), scenario.id).toBeGreaterThanOrEqual(1_000);
    }
  });

  it('finds the devDependency aliases of an SDK', () => {
    const llmMock = new URL('../../packages/extract-openai/', import.meta.url).pathname;
    expect(installedMajors(llmMock, 'openai')).toEqual(['openai', 'openai-v4', 'openai-v5', 'openai-v6']);
  });
});

describe('stream-matrix frames, played by the loopback server', () => {
  let server: fixtures.LoopbackServer;
  beforeAll(async () => {
    server = await fixtures.startLoopbackServer();
  });
  afterAll(() => server.close());

  it('sseFrame: every event, then the ending', async () => {
    const scenario = { response: sseFrame([{ data: '{"a":1}' }, { event: 'done', data: '[DONE]' }], 'end') };
    const response = await fetch(server.baseUrlFor(scenario), { method: 'POST', body: '{}' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe('data: {"a":1}\n\nevent: done\ndata: [DONE]\n\n');
  });

  it('eventStreamFrame: a cut splits the last message, so the reader keeps a partial frame', async () => {
    const messages = [1, 2].map((index) => ({
      headers: { ':message-type': 'event', ':event-type': 'chunk' },
      payload: JSON.stringify({ index }),
    }));
    const scenario = { response: eventStreamFrame(messages, 'cut') };
    const response = await fetch(server.baseUrlFor(scenario), { method: 'POST', body: '{}' });
    const bytes: Uint8Array[] = [];
    const result = await drain(response.body as unknown as AsyncIterable<Uint8Array>, () => {});
    for (const chunk of result.chunks) bytes.push(chunk as Uint8Array);
    const all = new Uint8Array(Buffer.concat(bytes));
    const decoded = fixtures.decodeEventStreamMessages(all);
    expect(decoded.messages.map((message) => JSON.parse(message.payload))).toEqual([{ index: 1 }]);
    expect(decoded.rest.length).toBeGreaterThan(0);
  });
});
