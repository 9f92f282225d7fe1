import { beforeAll, describe, it } from 'vitest';
import { adapterRow } from './check-common-exports.ts';
import { loadProviderModule } from './check-exports.ts';
import { checkEverythingListed } from './check-listed.ts';
import { checkProviderLists } from './check-provider-lists.ts';
import { CHECK_NAMES, CHECK_TITLES, type ProviderParity, runParityChecks } from './parity.ts';
import { REPOSITORY_ROOT, readProviderList } from './provider-list.ts';

// The meta-test: every provider in providers.json, loaded by path, checked the same way.
// `FAULTLINE_PARITY_ONLY=acme,groq` narrows it (tools/create-extractor/ci-check.sh uses it).
const only = process.env.FAULTLINE_PARITY_ONLY?.split(',').filter((name) => name.length > 0);
const providers = readProviderList(REPOSITORY_ROOT).providers.filter(
  (entry) => only === undefined || only.includes(entry.name),
);

let results: ProviderParity[] = [];
beforeAll(async () => {
  results = await runParityChecks(REPOSITORY_ROOT, only === undefined ? {} : { only });
  for (const result of results) {
    console.info(
      `parity: provider '${result.provider.name}': ${result.realErrorCount} real errors of its own client read`,
    );
    for (const note of result.notes) console.warn(`parity note: ${note}`);
  }
  // The per-adapter table of the common set: which idea each adapter exports, or why it lacks it.
  const rows: Record<string, Record<string, string>> = {};
  for (const provider of providers)
    rows[provider.name] = adapterRow((await loadProviderModule(REPOSITORY_ROOT, provider)).module, provider);
  console.table(rows);
}, 300_000);

describe('providers.json', () => {
  it('lists every packages/extract-* package and provider scenario folder', () => {
    const problems = checkEverythingListed(REPOSITORY_ROOT);
    if (problems.length > 0) throw new Error(`\n${problems.join('\n')}`);
  });

  it('is the only provider list: nothing else writes one out (capability lists aside)', () => {
    const problems = checkProviderLists(REPOSITORY_ROOT);
    if (problems.length > 0) throw new Error(`\n${problems.join('\n')}`);
  });
});

for (const provider of providers) {
  describe(`provider '${provider.name}'`, () => {
    for (const check of CHECK_NAMES) {
      it(CHECK_TITLES[check], () => {
        const result = results.find((candidate) => candidate.provider.name === provider.name);
        if (result === undefined) throw new Error(`parity: provider '${provider.name}' was not checked`);
        const problems = result.problems[check];
        if (problems.length > 0) throw new Error(`\n${problems.join('\n')}`);
      });
    }
  });
}
