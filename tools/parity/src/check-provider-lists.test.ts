import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkProviderLists, findProviderLists } from './check-provider-lists.ts';
import { removeDirectory, temporaryDirectory, writeFile, writeJson } from './fixture-repository.ts';

// The provider-lists check on temporary repositories, one way of writing a list at a time.
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) removeDirectory(root);
});

function repository(files: Record<string, string>): string {
  const root = temporaryDirectory('faultline-provider-lists-');
  roots.push(root);
  writeJson(join(root, 'providers.json'), {
    providers: [
      { name: 'acme', sdk: null },
      { name: 'globex', sdk: 'globex-sdk' },
      { name: 'initech', sdk: 'initech' },
      { name: 'umbrella', sdk: null },
    ],
  });
  for (const [path, text] of Object.entries(files)) writeFile(join(root, path), text);
  return root;
}

describe('the provider-lists check', () => {
  it.each([
    ['an array', "export const ALL = ['acme', 'globex', 'initech'] as const;"],
    ['an object keyed by provider', 'export const BOUND = { acme: 1, globex: 2, initech: 3 };'],
    ['a quoted-key object', "export const LABEL = { 'acme': 'a', 'globex': 'g', 'initech': 'i' };"],
    ['a union type', "export type Known = 'acme' | 'globex' | 'initech' | 'umbrella';"],
    [
      'a table of rows naming their provider',
      "export const rows = [{ provider: 'acme', n: 1 }, { provider: 'globex', n: 2 }, { provider: 'initech', n: 3 }];",
    ],
    ['a list in a test file', "for (const provider of ['acme', 'globex', 'initech']) console.log(provider);"],
  ])('fails on %s written out', (_what, source) => {
    const root = repository({ 'tools/thing/src/list.test.ts': source });
    const problems = checkProviderLists(root, {});
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^tools\/thing\/src\/list\.test\.ts:1 lists providers of its own \(acme, globex, initech/,
    );
    expect(problems[0]).toContain('read providers.json');
  });

  it('passes code that reads the list, names two providers, or names a few among many other keys', () => {
    const root = repository({
      'packages/thing/src/a.ts':
        "import { PROVIDER_NAMES } from '@faultline/cli/driver';\nexport const all = PROVIDER_NAMES;",
      'packages/thing/src/b.ts': "export const pair = ['acme', 'globex'];",
      'packages/thing/src/c.ts':
        "export const CANARIES = { acme: 'a', globex: 'g', initech: 'i', bearer: 'b', url: 'u', body: 'x', user: 'y' };",
    });
    expect(findProviderLists(root)).toEqual([]);
    expect(checkProviderLists(root, {})).toEqual([]);
  });

  it('allows a registered capability list, and fails on a registration that lists nothing', () => {
    const root = repository({
      'packages/mock/src/formats.ts': "export const FORMATS = ['acme', 'globex', 'initech'] as const;",
    });
    expect(
      checkProviderLists(root, { 'packages/mock/src/formats.ts': 'the formats the mock speaks' }),
    ).toEqual([]);
    expect(
      checkProviderLists(root, { 'packages/mock/src/formats.ts': 'x', 'packages/gone.ts': 'y' }),
    ).toEqual(['CAPABILITY_LISTS registers packages/gone.ts, which holds no provider list: remove it']);
  });

  it('skips node_modules and dist', () => {
    const root = repository({
      'packages/thing/node_modules/x/index.ts': "export const ALL = ['acme', 'globex', 'initech'];",
      'packages/thing/dist/index.ts': "export const ALL = ['acme', 'globex', 'initech'];",
    });
    expect(findProviderLists(root)).toEqual([]);
  });
});
