import { defineConfig } from 'vitest/config';
import shared from '../vitest.shared.ts';

// Same as the shared config, without the `module` condition: vitest forwards the SSR conditions
// to the test process as `--conditions`, and with `module` Node's own resolver picks the `dist-es`
// build of @smithy/core (used by @smithy/eventstream-codec and the AWS SDK), whose extensionless
// imports Node cannot load ("Cannot find module .../dist-es/.../EventStreamCodec").
const conditions = ['source', 'node', 'import', 'default'];

export default defineConfig({
  ...shared,
  resolve: { ...shared.resolve, conditions },
  ssr: { ...shared.ssr, resolve: { ...shared.ssr?.resolve, conditions, externalConditions: ['source'] } },
});
