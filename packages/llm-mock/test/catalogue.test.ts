import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE_END, CATALOGUE_START, catalogueTable, withCatalogue } from '../src/catalogue.ts';
import { loadScenarios, PROVIDERS } from '../src/index.ts';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('the README catalogue', () => {
  it('is the table generated from the scenario files (run `pnpm --filter @faultline/llm-mock catalogue`)', () => {
    expect(readme).toBe(withCatalogue(readme, catalogueTable()));
  });

  it('covers every provider of providers.json, each one a wire format the mock speaks', () => {
    const listed = (
      JSON.parse(readFileSync(new URL('../../../providers.json', import.meta.url), 'utf8')) as {
        providers: Array<{ name: string }>;
      }
    ).providers.map((provider) => provider.name);
    // A provider added to providers.json needs its healthy answers and error format in src/providers.ts.
    expect([...PROVIDERS].sort()).toEqual([...listed].sort());
  });

  it('has one row per scenario of the six providers', () => {
    const section = readme.slice(readme.indexOf(CATALOGUE_START), readme.indexOf(CATALOGUE_END));
    const ids = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]);
    const expected = loadScenarios()
      .filter((scenario) => !scenario.id.startsWith('_'))
      .map((scenario) => scenario.id);
    expect(ids.sort()).toEqual(expected.sort());
  });
});
