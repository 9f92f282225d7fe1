import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT } from './provider-list.ts';

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly exports?: Record<string, string | Record<string, string>>;
}

// Every publishable package pins each of its entry points' export lists in src/exports.test.ts
// (see vitest.exports.ts), so that a change to what users can import is deliberate: a package or an
// entry point without its pinned list fails here.
describe('export lists', () => {
  const packages = join(REPOSITORY_ROOT, 'packages');
  const manifests = readdirSync(packages)
    .map((name) => join(packages, name))
    .filter((directory) => existsSync(join(directory, 'package.json')))
    .map((directory) => ({
      directory,
      manifest: JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as Manifest,
    }))
    .filter(({ manifest }) => manifest.private !== true);

  it('finds the publishable packages', () => {
    expect(manifests.map(({ manifest }) => manifest.name)).toContain('@faultline/render');
  });

  for (const { directory, manifest } of manifests) {
    // Code entry points; a data file (`./package.json`, a published JSON Schema) exports no names.
    const entries = Object.entries(manifest.exports ?? {}).filter(([entry]) => !entry.endsWith('.json'));
    it(`${manifest.name}: src/exports.test.ts pins every entry point`, () => {
      // A package with no code entry (a bin that only adds dependencies) has no names to pin.
      if (entries.length === 0) return;
      const test = join(directory, 'src', 'exports.test.ts');
      expect(existsSync(test), `${relative(REPOSITORY_ROOT, test)} is missing`).toBe(true);
      const text = readFileSync(test, 'utf8');
      for (const [entry, target] of entries) {
        const source = typeof target === 'string' ? undefined : target['@faultline/source'];
        expect(source, `${manifest.name} ${entry} has no @faultline/source condition`).toBeDefined();
        const file = `./${relative(join(directory, 'src'), join(directory, source ?? ''))}`;
        expect(text, `${manifest.name} ${entry}: ${file} is not pinned`).toMatch(
          new RegExp(`import \\* as \\w+ from '${file.replaceAll('.', '\\.')}'`),
        );
        expect(text).toContain(`new URL('${file}', import.meta.url)`);
      }
    });
  }
});
