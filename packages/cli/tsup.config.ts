import { defineConfig } from 'tsup';
import { shippedMapOptions } from '../../tsup.shared.ts';

// Every workspace package the CLI uses is a published dependency (@faultline/llm-mock carries the
// scenario catalogue and the provider server), so nothing is bundled and nothing is copied, but
// two things: providers.json, inlined where src/driver/provider-list.ts imports it, and the
// driver modules of src/driver/providers/, each its own chunk (esbuild bundles the files a
// template `import()` can reach), loaded only when its provider is driven.
export default defineConfig({
  entry: { cli: 'src/cli.ts', index: 'src/index.ts', 'driver/index': 'src/driver/index.ts' },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  ...shippedMapOptions,
});
