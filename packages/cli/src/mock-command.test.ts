import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageDirectory } from './test-support.ts';

// `faultline mock` is for clients in any language (Python's openai, curl, Go...). These tests are
// such a client: plain HTTP requests from Node, the way the Python SDK sends them, against the
// standalone server started as a subprocess, stopped with SIGTERM.
const folder = mkdtempSync(join(tmpdir(), 'faultline-mock-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface Standalone {
  origin: string;
  stop(): Promise<{ stdout: string; stderr: string; code: number | null }>;
}

function startStandalone(args: string[]): Promise<Standalone> {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  delete environment.NODE_OPTIONS;
  const child = spawn(
    process.execPath,
    [
      '--conditions=@faultline/source',
      '--import',
      'tsx',
      join(packageDirectory, 'src', 'cli.ts'),
      'mock',
      ...args,
    ],
    { cwd: packageDirectory, env: environment, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    void exited.then((code) =>
      reject(new Error(`faultline mock exited (${code}) before listening: ${stderr}`)),
    );
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match !== null) {
        resolve({
          origin: match[1]!,
          async stop() {
            child.kill('SIGTERM');
            const code = await exited;
            return { stdout, stderr, code };
          },
        });
      }
    });
  });
}

const pythonLikeHeaders = {
  'content-type': 'application/json',
  authorization: 'Bearer sk-canary-standalone-0000',
  'user-agent': 'OpenAI/Python 1.99.0',
};

async function chat(origin: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: pythonLikeHeaders,
    body: JSON.stringify(body),
  });
}

describe('faultline mock (standalone)', () => {
  it('plays the script, answers in the provider format, logs each request, and passes a client that waits as asked', async () => {
    const script = join(folder, 'two-429s.json');
    writeFileSync(
      script,
      JSON.stringify([{ kind: 'status', status: 429, retryAfter: 1, times: 2 }, { kind: 'ok' }]),
    );
    const server = await startStandalone(['--provider', 'openai', '--port', '0', '--script', script]);
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] };
    const statuses: number[] = [];
    let answer: Response | undefined;
    // A well-behaved client: waits the Retry-After before each retry.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      answer = await chat(server.origin, body);
      statuses.push(answer.status);
      if (answer.status !== 429) break;
      expect(answer.headers.get('retry-after')).toBe('1');
      const error = (await answer.json()) as { error: { type: string; code: string } };
      expect(error.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
      await new Promise((resolve) => setTimeout(resolve, Number(answer!.headers.get('retry-after')) * 1000));
    }
    expect(statuses).toEqual([429, 429, 200]);
    const completion = (await answer!.json()) as {
      object: string;
      choices: Array<{ message: { content: string } }>;
    };
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]!.message.content).toBe('Hello from llm-mock.');

    const stream = await chat(server.origin, {
      ...body,
      messages: [{ role: 'user', content: 'stream it' }],
      stream: true,
    });
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const events = (await stream.text()).split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');

    const { stdout, stderr, code } = await server.stop();
    expect(code).toBe(0);
    expect(stdout).toMatch(/openai {7}base URL http:\/\/127\.0\.0\.1:\d+\/v1\n/);
    expect(stdout).toContain('verdict: the client kept the retry contract (4 requests)');
    expect(stderr.split('\n').filter((line) => line.startsWith('#'))).toHaveLength(4);
    expect(stderr).toMatch(
      /#1 .* openai POST \/v1\/chat\/completions \(\d+ B\) → status 429 \(retry-after 1 s\) \[rate_limit, retryable\]/,
    );
    expect(`${stdout}${stderr}`).not.toContain('sk-canary-standalone');
  }, 30_000);

  it('prints a diff-style verdict for a client that ignores Retry-After, and exits 1 with --strict', async () => {
    const script = join(folder, 'anthropic.json');
    writeFileSync(
      script,
      JSON.stringify({
        anthropic: { steps: [{ kind: 'scenario', id: 'anthropic/rate-limit' }, { kind: 'ok' }] },
      }),
    );
    const server = await startStandalone([
      '--provider',
      'anthropic',
      '--provider',
      'openai',
      '--script',
      script,
      '--strict',
    ]);
    const request = () =>
      fetch(`${server.origin}/anthropic/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': 'sk-ant-canary',
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify({
          model: 'claude-sonnet-4-5',
          max_tokens: 16,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
    expect((await request()).status).toBe(429);
    const retried = await request();
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as { type: string }).type).toBe('message');
    const { stdout, code } = await server.stop();
    expect(code).toBe(1);
    expect(stdout).toContain('llm-mock verdict: the client broke the retry contract');
    expect(stdout).toMatch(
      / {2}ignored-retry-after\n {2}- expected: wait ≥ \d+ ms \(Retry-After \d+ s\) after #1 anthropic POST \/v1\/messages → anthropic\/rate-limit, rate_limit\n {2}\+ actual: {3}retried after \d+ ms \(#2\)/,
    );
  }, 30_000);

  it('names a bad script and exits 2', async () => {
    const script = join(folder, 'bad.json');
    writeFileSync(script, JSON.stringify([{ kind: 'status', status: 42 }]));
    const server = startStandalone(['--script', script]);
    await expect(server).rejects.toThrow(
      /exited \(2\) before listening: faultline: --script .*bad\.json \(openai\): invalid llm-mock script:\n {2}- steps\.0\.status/,
    );
  }, 30_000);
});
