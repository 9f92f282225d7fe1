import { docExamples } from '@faultline/test-fixtures';
import { expect, it } from 'vitest';

const PAGE = 'docs/integrations/mcp.md';

// The examples are run by mcp.test.ts (server.ts and agent.ts against the real SDK) and by the
// packed-install step (main.ts, from the installed tarballs); here the page is held to the files.
it(`${PAGE} shows exactly the example files`, () => {
  const examples = docExamples(PAGE);
  expect(examples.map((example) => example.file)).toEqual([
    'packages/mcp/examples/server.ts',
    'packages/mcp/examples/agent.ts',
    'packages/mcp/examples/main.ts',
  ]);
  for (const example of examples) expect(example.shown, example.file).toBe(example.actual);
});
