import { defineConfig } from 'vitest/config';

// Tests read every workspace package from `src` through the `source` export condition,
// so no build is needed before `pnpm test`.
export default defineConfig({
  resolve: { conditions: ['source', 'module', 'node', 'import', 'default'] },
  ssr: {
    resolve: {
      conditions: ['source', 'module', 'node', 'import', 'default'],
      externalConditions: ['source'],
    },
  },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
