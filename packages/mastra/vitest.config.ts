import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// Mastra reports usage to its telemetry service unless told not to: tests talk to 127.0.0.1 only.
export default mergeConfig(shared, defineConfig({ test: { env: { MASTRA_TELEMETRY_DISABLED: '1' } } }));
