import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The guide's examples (`examples/*.test.ts`) are tests too: each one runs as a user would.
export default mergeConfig(
  shared,
  defineConfig({ test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'] } }),
);
