import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// @mistralai/mistralai 2.x publishes its TypeScript sources under a `source` export condition,
// the same condition the workspace uses to read its own packages from `src`. Tests must run the
// SDK users run (the published `esm` build), so the SDK entry is pinned to it here.
const mistralEsm = fileURLToPath(
  new URL('./node_modules/@mistralai/mistralai/esm/index.js', import.meta.url),
);

export default defineConfig({
  ...shared,
  resolve: {
    ...shared.resolve,
    alias: [{ find: /^@mistralai\/mistralai$/, replacement: mistralEsm }],
  },
});
