import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// Every test runs the CLI as a subprocess that loads real SDKs (Mistral's alone is thousands of
// modules): generous limits keep a busy machine from failing a correct run.
export default mergeConfig(shared, defineConfig({ test: { testTimeout: 90_000, hookTimeout: 180_000 } }));
