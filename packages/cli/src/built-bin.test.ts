import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fromDict } from '@faultline/render';
import { describe, expect, it } from 'vitest';
import { packageDirectory } from './test-support.ts';

const run = promisify(execFile);
const binPath = join(packageDirectory, 'dist', 'cli.js');

// The published bin reads the scenario catalogue from its dependency @faultline/llm-mock.
// CI builds every package before testing, so there the bin is fresh; locally dist may be stale.
describe.runIf(process.env.CI !== undefined && existsSync(binPath))('the built bin (dist/cli.js)', () => {
  const options = { cwd: tmpdir(), env: { ...process.env, NODE_OPTIONS: undefined }, timeout: 80_000 };

  it('prints its version', async () => {
    const { stdout } = await run(process.execPath, [binPath, '--version'], options);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('runs the Bedrock demo (h2c, AWS event streams) from the catalogue of @faultline/llm-mock', async () => {
    expect(existsSync(join(packageDirectory, 'dist', 'scenarios'))).toBe(false);
    const { stdout } = await run(
      process.execPath,
      [binPath, 'demo', '--json', '--provider', 'bedrock'],
      options,
    );
    const rows = JSON.parse(stdout) as Array<{ scenario: string; report: unknown }>;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) fromDict(row.report);
    expect(rows.some((row) => fromDict(row.report).reason === 'interrupted')).toBe(true);
  });
});
