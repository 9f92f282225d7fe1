import { defineConfig } from 'tsup';

// Every workspace package the CLI uses is a published dependency (@faultline/llm-mock carries the
// scenario catalogue and the provider server), so nothing is bundled and nothing is copied.
export default defineConfig({
  entry: ['src/cli.ts', 'src/index.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
