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
    // A worker runs its test files one after another in one module graph: the SDKs (thousands of
    // modules for some) are imported once per worker instead of once per file. A test file must
    // therefore leave no global state behind (timers, stubs, environment); a package whose tests
    // cannot share a worker sets `isolate: true` in its own vitest.config.ts, with the reason.
    isolate: false,
  },
});
