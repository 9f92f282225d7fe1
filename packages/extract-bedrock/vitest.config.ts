import { defineConfig } from 'vitest/config';

// The shared config resolves with the `module` condition, which vitest also passes to its
// workers as `--conditions module`. @aws-sdk/core and @smithy/core map `module` to their
// `dist-es` builds, whose extensionless imports Node's ESM loader rejects, so the real SDK could
// not load. This package keeps the shared settings without that condition.
const conditions = ['source', 'node', 'import', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
