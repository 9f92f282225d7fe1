import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// As in test-fixtures: without the `module` condition, which makes Node load the `dist-es`
// build of @smithy/core (pulled in by the loopback server's event-stream codec) and fail.
const conditions = ['source', 'node', 'import', 'default'];

export default defineConfig({
  ...shared,
  resolve: { ...shared.resolve, conditions },
  ssr: { ...shared.ssr, resolve: { ...shared.ssr?.resolve, conditions, externalConditions: ['source'] } },
});
