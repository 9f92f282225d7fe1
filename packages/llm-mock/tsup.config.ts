import { defineConfig } from 'tsup';
import { shippedMapOptions } from '../../tsup.shared.ts';

// The catalogue (`scenarios/`) ships beside `dist/`: `scenariosDir` resolves `../scenarios` from
// the module, which is `src/` in the workspace and `dist/` once built.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  ...shippedMapOptions,
});
