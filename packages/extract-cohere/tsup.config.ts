import { defineConfig } from 'tsup';
import { importPathOptions } from '../../tsup.shared.ts';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  ...importPathOptions,
});
