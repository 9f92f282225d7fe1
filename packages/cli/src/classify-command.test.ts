import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ErrorReport, fromDict } from '@faultline/render';
import { beforeAll, describe, expect, it } from 'vitest';
import { ansiEscape, packageDirectory, runFaultline, stackTraceLine } from './test-support.ts';

const openaiRateLimit = JSON.stringify({
  error: {
    message:
      'Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3. Please try again in 20s.',
    type: 'requests',
    param: null,
    code: 'rate_limit_exceeded',
  },
});
const openaiBadKey = JSON.stringify({
  error: {
    message: 'Incorrect API key provided.',
    type: 'invalid_request_error',
    param: null,
    code: 'invalid_api_key',
  },
});
const anthropicOverloaded = JSON.stringify({
  type: 'error',
  error: { type: 'overloaded_error', message: 'Overloaded' },
});
const googleQuota = JSON.stringify({
  error: {
    code: 429,
    message: 'You exceeded your current quota, please check your plan and billing details.',
    status: 'RESOURCE_EXHAUSTED',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
          },
        ],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '23s' },
    ],
  },
});
// Gemini's free-tier per-minute 429 (google-gemini/gemini-cli-action#36): the window decides, not the tier.
const googlePerMinuteFreeTier = JSON.stringify({
  error: {
    code: 429,
    message:
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
    status: 'RESOURCE_EXHAUSTED',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_input_token_count',
            quotaId: 'GenerateContentInputTokensPerModelPerMinute-FreeTier',
            quotaDimensions: { location: 'global', model: 'gemini-2.5-pro' },
            quotaValue: '250000',
          },
        ],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '26s' },
    ],
  },
});
const mistralNotFound = JSON.stringify({
  object: 'error',
  message: 'Invalid model: mistral-nope',
  type: 'invalid_model',
  param: null,
  code: '1500',
});

let directory: string;
function file(name: string, content: string): string {
  const path = join(directory, name);
  writeFileSync(path, content);
  return path;
}

function report(stdout: string): ErrorReport {
  return fromDict(JSON.parse(stdout));
}

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'faultline-cli-'));
});

describe.concurrent('faultline classify: an HTTP response', () => {
  it('classifies a body from --body-file, with headers, through the real SDK', async () => {
    const run = await runFaultline([
      'classify',
      '--status',
      '429',
      '--header',
      'retry-after: 20',
      '--header',
      'x-request-id: req_cli_1',
      '--body-file',
      file('openai-429.json', openaiRateLimit),
      '--format',
      'json',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const result = report(run.stdout);
    expect(result).toMatchObject({
      provider: 'openai',
      reason: 'rate_limit',
      category: 'transient',
      retryable: true,
    });
    expect(result.retryAfterSeconds).toBe(20);
    expect(result.providerMetadata).toMatchObject({ statusCode: 429, requestId: 'req_cli_1' });
  });

  it('reads the body from standard input and detects Anthropic', async () => {
    const run = await runFaultline(['classify', '--status', '529', '--format', 'json'], {
      input: anthropicOverloaded,
    });
    expect(run.code).toBe(1);
    expect(report(run.stdout)).toMatchObject({
      provider: 'anthropic',
      reason: 'overloaded',
      retryable: true,
    });
  });

  it.each([
    ['google-genai', '429', googleQuota, [], 'quota'],
    ['mistral', '400', mistralNotFound, [], 'model_not_found'],
    ['openai', '401', openaiBadKey, [], 'auth'],
    ['anthropic', '529', anthropicOverloaded, [], 'overloaded'],
  ])('detects %s from the body shape', async (provider, status, body, headers, reason) => {
    const run = await runFaultline(['classify', '--status', status, '--format', 'json', ...headers], {
      input: body,
    });
    expect(run.stderr).toBe('');
    expect(report(run.stdout)).toMatchObject({ provider, reason });
  });

  it('detects Bedrock from the x-amzn-errortype header', async () => {
    const run = await runFaultline(
      [
        'classify',
        '--status',
        '429',
        '--header',
        'x-amzn-errortype: ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/',
        '--header',
        'x-amzn-requestid: 5d1e-cli',
        '--format',
        'json',
      ],
      { input: JSON.stringify({ message: 'Too many requests, please wait before trying again.' }) },
    );
    expect(run.stderr).toBe('');
    expect(report(run.stdout)).toMatchObject({ provider: 'bedrock', reason: 'rate_limit' });
  });

  it('uses --provider over detection (Groq answers in the OpenAI shape)', async () => {
    const run = await runFaultline(
      ['classify', '--status', '429', '--provider', 'groq', '--format', 'json'],
      {
        input: openaiRateLimit,
      },
    );
    expect(report(run.stdout)).toMatchObject({ provider: 'groq', reason: 'rate_limit' });
  });

  it('lets the status decide for a body no provider claims', async () => {
    const run = await runFaultline(['classify', '--status', '502', '--format', 'json'], {
      input: '<html><body>502 Bad Gateway</body></html>',
    });
    expect(run.code).toBe(1);
    expect(report(run.stdout)).toMatchObject({ reason: 'server_error', retryable: true });
  });

  it('prints every format', async () => {
    const bodyFile = file('formats.json', openaiRateLimit);
    const base = ['classify', '--status', '429', '--body-file', bodyFile];
    const [json, markdown, wire, panel, defaultFormat] = await Promise.all([
      runFaultline([...base, '--format', 'json']),
      runFaultline([...base, '--format', 'markdown']),
      runFaultline([...base, '--format', 'wire']),
      runFaultline([...base, '--format', 'panel']),
      runFaultline(base),
    ]);
    expect(report(json.stdout).reason).toBe('rate_limit');
    expect(markdown.stdout).toContain('rate_limit');
    expect(markdown.stdout).toMatch(/^#|\|/m);
    const wireError = JSON.parse(wire.stdout) as Record<string, unknown>;
    expect(wireError).toMatchObject({ category: 'transient' });
    expect(wireError).toHaveProperty('error');
    expect(panel.stdout).toContain('rate_limit');
    expect(panel.stdout).toContain('│');
    // Not a terminal: the default is JSON.
    expect(report(defaultFormat.stdout).reason).toBe('rate_limit');
    for (const run of [json, markdown, wire, panel, defaultFormat]) {
      expect(run.code).toBe(1);
      expect(run.stdout).not.toMatch(ansiEscape);
    }
  });

  it('never colours with NO_COLOR', async () => {
    const run = await runFaultline(['classify', '--status', '429', '--format', 'panel'], {
      input: openaiRateLimit,
      environment: { NO_COLOR: '1', FORCE_COLOR: '1' },
    });
    expect(run.stdout).toContain('rate_limit');
    expect(run.stdout).not.toMatch(ansiEscape);
  });

  it('exits 2 for a configuration failure, 0 with --exit-zero', async () => {
    const [plain, exitZero] = await Promise.all([
      runFaultline(['classify', '--status', '401', '--format', 'json', '--model', 'gpt-4o-mini'], {
        input: openaiBadKey,
      }),
      runFaultline(['classify', '--status', '401', '--format', 'json', '--exit-zero'], {
        input: openaiBadKey,
      }),
    ]);
    expect(report(plain.stdout)).toMatchObject({ category: 'configuration', model: 'gpt-4o-mini' });
    expect(plain.code).toBe(2);
    expect(exitZero.code).toBe(0);
    expect(report(exitZero.stdout).reason).toBe('auth');
  });
});

describe.concurrent('faultline classify --explain', () => {
  it('prints the rule that decided, its evidence and the features read (panel)', async () => {
    const run = await runFaultline(['classify', '--status', '429', '--format', 'panel', '--explain'], {
      input: googlePerMinuteFreeTier,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('rate_limit');
    expect(run.stdout).toContain('\ndecided by quota_id_short_window\n');
    expect(run.stdout).toContain('evidence   GenerateContentInputTokensPerModelPerMinute-FreeTier');
    expect(run.stdout).toContain('features read, in order:');
    expect(run.stdout).toMatch(/\n\s+overflow\s+—\n/);
    expect(run.stdout).toMatch(
      /\n\s+quotaIdWindow\s+short: GenerateContentInputTokensPerModelPerMinute-FreeTier\n?$/,
    );
  });

  it('in JSON, wraps the report and the explanation', async () => {
    const run = await runFaultline(['classify', '--status', '429', '--format', 'json', '--explain'], {
      input: googlePerMinuteFreeTier,
    });
    expect(run.code).toBe(1);
    const output = JSON.parse(run.stdout) as { report: unknown; explanation: Record<string, unknown> };
    const parsed = fromDict(output.report);
    expect(parsed).toMatchObject({ reason: 'rate_limit', retryable: true, retryAfterSeconds: 26 });
    expect(parsed.decidedBy).toEqual({
      rule: 'quota_id_short_window',
      evidence: 'GenerateContentInputTokensPerModelPerMinute-FreeTier',
    });
    expect(output.explanation).toMatchObject({
      rule: 'quota_id_short_window',
      evidence: 'GenerateContentInputTokensPerModelPerMinute-FreeTier',
    });
    const features = output.explanation.features as Record<string, string | null>;
    expect(features.overflow).toBeNull();
    expect(features.quotaIdWindow).toBe('short: GenerateContentInputTokensPerModelPerMinute-FreeTier');
    // The deciding quota id spares the vocabularies after it.
    expect(Object.keys(features)).not.toContain('allowance');
    expect(Object.keys(features)).not.toContain('throttle');
  });

  it('without --explain, JSON is the bare report, which still carries decidedBy', async () => {
    const run = await runFaultline(['classify', '--status', '429', '--format', 'json'], {
      input: googlePerMinuteFreeTier,
    });
    expect(report(run.stdout).decidedBy?.rule).toBe('quota_id_short_window');
  });
});

describe.concurrent('faultline classify: a log line', () => {
  it('classifies a serialised openai RateLimitError given with --log-line', async () => {
    const line = JSON.stringify({
      name: 'RateLimitError',
      status: 429,
      headers: { 'retry-after': '7', 'x-request-id': 'req_log_1' },
      error: {
        message: 'Rate limit reached for requests',
        type: 'requests',
        param: null,
        code: 'rate_limit_exceeded',
      },
      code: 'rate_limit_exceeded',
      message: '429 Rate limit reached for requests',
    });
    const run = await runFaultline(['classify', '--log-line', line, '--format', 'json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(report(run.stdout)).toMatchObject({
      provider: 'openai',
      reason: 'rate_limit',
      retryAfterSeconds: 7,
    });
  });

  it('finds the error in a pino line (err) read from stdin with --input-format log', async () => {
    const line = JSON.stringify({
      level: 50,
      time: 1_763_700_000_000,
      msg: 'completion failed',
      err: {
        type: 'APIError',
        message: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        status: 529,
        headers: { 'request-id': 'req_pino_1' },
        error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
        stack: 'Error: 529 ...\n    at APIError.generate (node_modules/@anthropic-ai/sdk/core/error.js:1:1)',
      },
    });
    const run = await runFaultline(['classify', '--input-format', 'log', '--format', 'json'], {
      input: `${line}\n`,
    });
    expect(run.stderr).toBe('');
    expect(report(run.stdout)).toMatchObject({ provider: 'anthropic', reason: 'overloaded' });
  });

  it('classifies a serialised Gemini ApiError and a Mistral SDKError', async () => {
    const [google, mistral] = await Promise.all([
      runFaultline([
        'classify',
        '--log-line',
        JSON.stringify({ name: 'ApiError', status: 429, message: googleQuota }),
        '--format',
        'json',
      ]),
      runFaultline([
        'classify',
        '--log-line',
        JSON.stringify({
          name: 'SDKError',
          statusCode: 400,
          body: mistralNotFound,
          message: 'API error occurred',
        }),
        '--format',
        'json',
      ]),
    ]);
    expect(report(google.stdout)).toMatchObject({ provider: 'google-genai', reason: 'quota' });
    expect(report(mistral.stdout)).toMatchObject({ provider: 'mistral', reason: 'model_not_found' });
  });

  it('classifies a logged network error by its cause code', async () => {
    const line = JSON.stringify({
      name: 'Error',
      message: 'Connection error.',
      status: undefined,
      cause: {
        name: 'TypeError',
        message: 'fetch failed',
        cause: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' },
      },
    });
    const run = await runFaultline(['classify', '--log-line', line, '--format', 'json']);
    expect(run.stderr).toBe('');
    expect(report(run.stdout)).toMatchObject({ reason: 'connection', retryable: true });
  });
});

describe.concurrent('faultline classify: bad input', () => {
  it.each([
    [
      'an unreadable body file',
      ['--status', '429', '--body-file', '/nonexistent/body.json'],
      'cannot read --body-file',
    ],
    ['an invalid JSON log line', ['--log-line', '{not json'], 'not valid JSON'],
    ['a missing status', ['--body-file', '/dev/null'], '--status is required'],
    ['a bad status', ['--status', 'abc'], '--status must be'],
    ['an unknown provider', ['--status', '429', '--provider', 'nope'], 'unknown provider "nope"'],
    ['a bad format name', ['--status', '429', '--format', 'yaml'], 'yaml'],
    ['a bad header', ['--status', '429', '--header', 'no colon here'], '--header must look like'],
    ['an unknown option', ['--status', '429', '--bogus'], '--bogus'],
  ])('rejects %s with one line on stderr and exit 2', async (_name, args, message) => {
    const run = await runFaultline(['classify', ...args], { input: openaiRateLimit });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).not.toMatch(stackTraceLine);
  });
});

describe.concurrent('secrets', () => {
  const canary = 'sk-proj-CANARYabcdefghijklmnopqrstuvwxyz0123456789';
  const body = JSON.stringify({
    error: {
      message: `Incorrect API key provided: ${canary}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      type: 'invalid_request_error',
      param: null,
      code: 'invalid_api_key',
    },
  });

  it('never prints a key from the body or the headers, in any format', async () => {
    const runs = await Promise.all(
      ['json', 'markdown', 'wire', 'panel'].map((format) =>
        runFaultline(
          [
            'classify',
            '--status',
            '401',
            '--header',
            `authorization: Bearer ${canary}`,
            '--header',
            `x-api-key: ${canary}`,
            '--format',
            format,
          ],
          { input: body },
        ),
      ),
    );
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toContain('auth');
      expect(run.stdout + run.stderr).not.toContain('CANARY');
    }
  });

  it('never echoes a key pasted into the wrong option', async () => {
    const runs = await Promise.all([
      runFaultline(['classify', '--status', '401', '--header', `Authorization Bearer ${canary}`], {
        input: body,
      }),
      runFaultline(['classify', '--status', '401', '--format', canary], { input: body }),
      runFaultline(['classify', '--status', canary], { input: body }),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stderr).not.toBe('');
      expect(run.stdout + run.stderr).not.toContain('CANARY');
    }
  });

  it('never prints a key from a log line', async () => {
    const line = JSON.stringify({
      name: 'AuthenticationError',
      status: 401,
      headers: { authorization: `Bearer ${canary}` },
      error: JSON.parse(body).error,
      message: `401 Incorrect API key provided: ${canary}`,
    });
    const run = await runFaultline(['classify', '--log-line', line, '--format', 'panel']);
    expect(run.stdout).toContain('auth');
    expect(run.stdout + run.stderr).not.toContain('CANARY');
  });
});

describe.concurrent('help and version', () => {
  it.each([[['--help']], [['demo', '--help']], [['classify', '--help']], [['help', 'classify']]])(
    'prints help for %j and exits 0',
    async (args) => {
      const run = await runFaultline(args);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Usage: faultline');
    },
  );

  it('prints the version', async () => {
    const run = await runFaultline(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

const scriptBinary = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path));

describe.runIf(scriptBinary !== undefined)('on a terminal (through script(1))', () => {
  function onTerminal(command: string): string {
    // script(1) gives the command a pseudo-terminal; its transcript is what a person would see.
    return execFileSync(scriptBinary as string, ['-qec', `stty cols 120 rows 40; ${command}`, '/dev/null'], {
      cwd: packageDirectory,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, NODE_OPTIONS: undefined },
      timeout: 80_000,
    });
  }

  it('prints a coloured panel by default, and no colour with NO_COLOR', () => {
    const bodyFile = file('terminal.json', openaiRateLimit);
    const faultline = `${JSON.stringify(process.execPath)} --conditions=@faultline/source --import tsx src/cli.ts classify --status 429 --exit-zero --body-file ${bodyFile}`;
    const coloured = onTerminal(faultline);
    expect(coloured).toContain('rate_limit');
    expect(coloured).toMatch(/│.*where/);
    expect(coloured).toMatch(ansiEscape);
    const plain = onTerminal(`NO_COLOR=1 ${faultline}`);
    expect(plain).toContain('rate_limit');
    expect(plain).toMatch(/│.*where/);
    expect(plain).not.toMatch(ansiEscape);
  });
});
