import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

// Runs examples/node-test.example.ts under node:test, in its own process, as its header says.
it('the node:test example passes under node --test', async () => {
  const environment: NodeJS.ProcessEnv = { ...process.env };
  delete environment.NODE_OPTIONS;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=@faultline/source', '--import', 'tsx', '--test', 'examples/node-test.example.ts'],
    { cwd: fileURLToPath(new URL('..', import.meta.url)), env: environment, timeout: 60_000 },
  );
  expect(stdout).toMatch(/# pass 1\n# fail 0/);
}, 70_000);
