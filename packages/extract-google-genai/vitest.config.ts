import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// Same as the shared config, without the `module` condition: vitest forwards the SSR conditions
// to the test process as `--conditions`, and with `module` Node's own resolver picks the `dist-es`
// build of @smithy/core (loaded by @faultline/test-fixtures), whose extensionless imports Node
// cannot load. Mirrors test-fixtures/vitest.config.ts.
const conditions = ['source', 'node', 'import', 'default'];

export default defineConfig({
  ...shared,
  resolve: { ...shared.resolve, conditions },
  ssr: { ...shared.ssr, resolve: { ...shared.ssr?.resolve, conditions, externalConditions: ['source'] } },
});
