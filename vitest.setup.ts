import { afterEach } from 'vitest';

// An extractor (or a rule of classify's table) that crashes while reading an error is a bug in
// faultline, even though the caller never sees the crash (the failure becomes faultline's own local_bug). Every test suite listens
// (through the registered symbol @faultline/classify's onExtractorCrash uses, so no import is
// needed here) and fails the test during which one crashed. A test that crashes an extractor on
// purpose takes its crashes with `takeExtractorCrashes()` from @faultline/test-fixtures.
type Crash = { provider: string; rule?: string; thrown: unknown };
type Listener = (crash: Crash) => void;
const key = Symbol.for('faultline.extractorCrashListeners');
const holder = globalThis as { [key]?: Set<Listener> };
holder[key] ??= new Set();
const crashes: Crash[] = [];
const recorded = Symbol.for('faultline.extractorCrashes');
(globalThis as Record<symbol, unknown>)[recorded] = crashes;
holder[key].add((crash) => crashes.push(crash));

afterEach(() => {
  if (crashes.length === 0) return;
  const seen = crashes.splice(0);
  throw new Error(
    `an extractor or a classify rule crashed during this test (a faultline bug): ${seen
      .map(
        ({ provider, rule, thrown }) =>
          `${provider}${rule === undefined ? '' : ` (rule ${rule})`}: ${thrown instanceof Error ? thrown.stack : String(thrown)}`,
      )
      .join('\n')}`,
  );
});
