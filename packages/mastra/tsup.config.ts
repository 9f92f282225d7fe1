import { defineConfig } from 'tsup';
import { declarationOptions, shippedMapOptions } from '../../tsup.shared.ts';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: declarationOptions,
  clean: true,
  sourcemap: true,
  target: 'node20',
  ...shippedMapOptions,
});
