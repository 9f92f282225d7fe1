import { readFileSync } from 'node:fs';
import { docExamples } from '@faultline/test-fixtures';
import { expect, it } from 'vitest';

// The program the docs page and the README show is one file; the packed-install step type-checks
// the README's copy against the installed packages and runs it under Node 22 against a spent quota.
const FILE = 'packages/mastra/examples/agent.ts';

it('docs/integrations/mastra.md shows exactly the example file', () => {
  const examples = docExamples('docs/integrations/mastra.md');
  expect(examples.map((example) => example.file)).toEqual([FILE]);
  for (const example of examples) expect(example.shown, example.file).toBe(example.actual);
});

it('the README shows the same program', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const actual = readFileSync(new URL('../examples/agent.ts', import.meta.url), 'utf8');
  expect(readme).toContain(`\`\`\`ts\n${actual}\`\`\``);
});
