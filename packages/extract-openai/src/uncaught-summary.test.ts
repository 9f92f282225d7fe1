import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// What a person sees when a FaultlineError is not caught: Node prints the error's stack and its
// enumerable fields, then its cause. The caller is test/uncaught-summary.ts, a file of its own: a
// real openai call through withClassifiedErrors against the loopback server's 429.
describe('an uncaught FaultlineError', () => {
  it("prints a short summary (reason, next step, provider, status) and the caller's frame before its cause", () => {
    const caller = fileURLToPath(new URL('../test/uncaught-summary.ts', import.meta.url));
    const child = spawnSync(process.execPath, ['--conditions=@faultline/source', '--import', 'tsx', caller], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(child.status).toBe(1);
    const output = child.stderr;
    const causeAt = output.indexOf('[cause]: RateLimitError');
    expect(causeAt, output).toBeGreaterThan(0);
    const before = output.slice(0, causeAt).split('\n');
    expect(before.length, output).toBeLessThan(20);
    expect(before).toContain(
      'FaultlineError: Rate limit reached for gpt-4o-mini in organization org-faultline on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms. Visit https://platform.openai.com/account/rate-limits to learn more.',
    );
    // The default retries (3 attempts) ran out against a server that always answers 429.
    expect(before).toContain('  reason:    rate_limit (transient, retryable, retries exhausted)');
    expect(before.some((line) => /^ {2}next step: fallback: \S/.test(line))).toBe(true);
    expect(before).toContain('  from:      provider openai, model gpt-4o-mini, HTTP 429, 3 attempts');
    expect(before.some((line) => line.includes(`at async askTheModel (${caller}:`))).toBe(true);
    // No secret on the way: the client's key stays out of what is printed.
    expect(output).not.toContain('sk-test-faultline');
  }, 90_000);
});
