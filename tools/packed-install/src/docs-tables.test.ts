import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TAXONOMY } from '@faultline/classify';
import { loadScenario } from '@faultline/llm-mock';
import { describe, expect, it } from 'vitest';
import {
  GENERATED,
  GENERATED_PAGES,
  NODE_LINES,
  providerWords,
  supportsNode,
  taxonomyTable,
  testedSdks,
  withGenerated,
} from './docs-tables.ts';
import { repoRoot } from './readme-examples.ts';

describe('generated docs tables', () => {
  for (const page of GENERATED_PAGES) {
    it(`${page.file} is the page TAXONOMY and the scenarios give (pnpm --filter @faultline/packed-install run docs)`, () => {
      expect(readFileSync(join(repoRoot, page.file), 'utf8')).toBe(page.render());
    });
  }

  it('a page per reason, each linked from the taxonomy table', () => {
    const taxonomy = readFileSync(join(repoRoot, 'docs/taxonomy.md'), 'utf8');
    expect(GENERATED_PAGES).toHaveLength(Object.keys(TAXONOMY).length);
    for (const page of GENERATED_PAGES) expect(taxonomy).toContain(`](${page.file.slice('docs/'.length)})`);
  });

  for (const generated of GENERATED) {
    it(`${generated.file} holds the table its sources give (pnpm --filter @faultline/packed-install run docs)`, () => {
      const text = readFileSync(join(repoRoot, generated.file), 'utf8');
      expect(text).toBe(withGenerated(text, generated.marker, generated.render()));
    });
  }

  it('the taxonomy table has one row per reason, with its category, retryable, next step, status and advice', () => {
    const lines = taxonomyTable().trim().split('\n').slice(2);
    expect(lines).toHaveLength(Object.keys(TAXONOMY).length);
    for (const [reason, row] of Object.entries(TAXONOMY)) {
      const line = lines.find((candidate) => candidate.startsWith(`| [\`${reason}\`](reasons/`));
      expect(line, reason).toBeDefined();
      const cells = line!.split(' | ');
      expect(cells[1]).toBe(`\`${row.category}\``);
      expect(cells[2]).toBe(row.retryable ? 'yes' : 'no');
      expect(cells[3]).toBe(`\`${row.nextStep}\``);
      expect(cells[4]).toBe(String(row.httpStatus));
      expect(cells[5]).toBe(row.advice.replaceAll('|', '\\|'));
      expect(cells[6], `${reason} has no example`).not.toBe('— |');
    }
  });

  it("quotes the provider's own code and message from a recorded answer", () => {
    const scenario = loadScenario('openai/insufficient-quota');
    const body = JSON.parse((scenario.response as { body: string }).body) as { error: { code: string } };
    const words = providerWords(scenario)!;
    expect(words.startsWith('429 ')).toBe(true);
    expect(words).toContain(`\`${body.error.code}\``);
    expect(words).toContain('"You exceeded your current quota');
  });

  it('reads the engines of every SDK major an adapter is tested with', () => {
    const sdks = testedSdks();
    const adapters = new Set(sdks.map((sdk) => sdk.adapter));
    expect(adapters.size).toBeGreaterThanOrEqual(6);
    for (const sdk of sdks) {
      const manifest = JSON.parse(
        readFileSync(
          join(repoRoot, 'packages', sdk.adapter.replace('@faultline/', ''), 'package.json'),
          'utf8',
        ),
      ) as { peerDependencies: Record<string, string> };
      expect(sdk.peerRange).toBe(manifest.peerDependencies[sdk.sdk]);
    }
  });

  it('supportsNode reads an engines range (none declared: every Node)', () => {
    expect(supportsNode('>=22.0.0', '20.19.0')).toBe(false);
    expect(supportsNode('>=22.0.0', '22.0.0')).toBe(true);
    expect(supportsNode('>=20.0.0', '20.19.0')).toBe(true);
    expect(supportsNode('', NODE_LINES[0])).toBe(true);
  });
});

describe('Node 20 first', () => {
  it('every SDK @faultline/demo installs supports the oldest Node the packages support', () => {
    const cliDir = join(repoRoot, 'packages/demo');
    const cli = JSON.parse(readFileSync(join(cliDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      engines: { node: string };
    };
    const oldest = NODE_LINES[0];
    expect(supportsNode(cli.engines.node, oldest)).toBe(true);
    const sdkNames = new Set(testedSdks().map((sdk) => sdk.sdk));
    const pinned = Object.keys(cli.dependencies).filter((name) => sdkNames.has(name));
    expect(pinned.length).toBeGreaterThanOrEqual(6);
    for (const name of pinned) {
      const installed = JSON.parse(
        readFileSync(join(cliDir, 'node_modules', name, 'package.json'), 'utf8'),
      ) as {
        version: string;
        engines?: { node?: string };
      };
      expect(
        supportsNode(installed.engines?.node ?? '', oldest),
        `${name}@${installed.version} declares node ${installed.engines?.node}`,
      ).toBe(true);
    }
  });
});
