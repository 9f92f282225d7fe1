import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// Each test file in a fresh module graph: in a shared worker, two of render's real-clock tests
// (classify-error's retried stack, guard-stream-phase's mid-stream deadline) time out after the
// files before them have run; those files use fake timers and module-level state, and until the
// state that leaks is found, render keeps the default isolation.
export default mergeConfig(shared, defineConfig({ test: { isolate: true } }));
