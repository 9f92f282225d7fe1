import { cpSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Options } from 'tsup';

const packageDirectory = dirname(fileURLToPath(import.meta.url));
const scenariosSource = join(packageDirectory, '..', '..', 'test-fixtures', 'scenarios');
const scenariosTarget = join(packageDirectory, 'dist', 'scenarios');

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * @faultline/test-fixtures is private, so it is bundled. Its loopback server loads
 * @smithy/eventstream-codec through `createRequire(import.meta.url)`, which from `dist/` would
 * look in this package's node_modules; resolve it from the Bedrock SDK (which depends on it)
 * instead. Fails the build when the expected code is gone, rather than shipping a broken demo.
 */
const eventStreamCodecFromBedrock: EsbuildPlugin = {
  name: 'event-stream-codec-from-bedrock',
  setup(build) {
    build.onLoad({ filter: /test-fixtures[\\/]src[\\/]loopback-server\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const needle = 'createRequire(import.meta.url)';
      if (!source.includes(needle)) {
        return {
          errors: [{ text: `${args.path} no longer contains ${needle}; update packages/cli/tsup.config.ts` }],
        };
      }
      return {
        contents: source.replaceAll(
          needle,
          "createRequire(import.meta.resolve('@aws-sdk/client-bedrock-runtime'))",
        ),
        loader: 'ts',
      };
    });
  },
};

export default defineConfig({
  entry: ['src/cli.ts', 'src/index.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
  noExternal: ['@faultline/test-fixtures'],
  esbuildPlugins: [eventStreamCodecFromBedrock],
  async onSuccess() {
    // The demo's scenarios travel with the bin: `dist/scenarios/<provider>/<name>.json`.
    rmSync(scenariosTarget, { recursive: true, force: true });
    cpSync(scenariosSource, scenariosTarget, { recursive: true });
  },
});
