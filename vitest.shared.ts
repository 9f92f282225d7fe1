import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests read every workspace package from `src` through the `@faultline/source` export condition (named so that
// no dependency's own `source` condition is picked up: @mistralai/mistralai ships one), so no
// build is needed before `pnpm test`. Keep this list minimal: vitest hands these conditions to
// Node (`--conditions`) for externalised dependencies, where `import` makes protobufjs lose
// `long` (Temporal timestamps break) and `module` sends @smithy/* to a build that cannot load.
const conditions = ['@faultline/source', 'node'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@faultline/source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: [fileURLToPath(new URL('./vitest.setup.ts', import.meta.url))],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
