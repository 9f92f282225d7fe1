/**
 * The generated tables of the user docs: the taxonomy (docs/taxonomy.md, from classify's TAXONOMY
 * and the recorded provider answers that lead to each reason) and the supported SDK majors per
 * Node (docs/sdk-support.md, from the `engines` of the SDK versions each adapter is tested with).
 * `pnpm --filter @faultline/packed-install run docs` rewrites them; docs-tables.test.ts fails when
 * a docs file differs from what this produces.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FailureReason, TAXONOMY } from '@faultline/classify';
import { loadScenarios, type Scenario } from '@faultline/llm-mock';
import semver from 'semver';
import { repoRoot } from './readme-examples.ts';

interface ProviderEntry {
  readonly name: string;
  readonly sdk: string | null;
}

export function providers(): ProviderEntry[] {
  return (
    JSON.parse(readFileSync(join(repoRoot, 'providers.json'), 'utf8')) as { providers: ProviderEntry[] }
  ).providers;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function cut(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= length ? flat : `${flat.slice(0, length - 1).trimEnd()}…`;
}

function field(value: unknown, ...path: string[]): string | number | undefined {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'string' || typeof current === 'number' ? current : undefined;
}

/** What the provider said, in its own words: status, code or type, and the start of its message. */
export function providerWords(scenario: Scenario): string | undefined {
  const response = scenario.response as { kind: string; status?: number; body?: string };
  // A 200 (an answer withheld by a filter) is told by its description, not by its body.
  if (response.kind !== 'http' || response.body === undefined || (response.status ?? 0) < 400)
    return undefined;
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return undefined;
  }
  const code =
    field(body, 'error', 'code') ??
    field(body, 'error', 'status') ??
    field(body, 'error', 'type') ??
    field(body, '__type') ??
    field(body, 'type') ??
    field(body, 'code');
  const message =
    field(body, 'error', 'message') ??
    field(body, 'message') ??
    field(body, 'Message') ??
    field(body, 'detail');
  if (code === undefined && message === undefined) return undefined;
  const parts = [`${response.status}`];
  if (code !== undefined && String(code) !== String(response.status)) parts.push(`\`${String(code)}\``);
  if (message !== undefined) parts.push(`"${cut(String(message), 70)}"`);
  return parts.join(' ');
}

/** Failures no provider answer leads to: what does. */
const WITHOUT_PROVIDER_WORDS: Partial<Record<FailureReason, string>> = {
  local_bug: 'a `TypeError`/`ReferenceError` thrown by your own code inside the call',
  cancelled:
    "your own AbortSignal firing, given to faultline or to the SDK alone (`withClassifiedErrors` re-throws the SDK's abort error untouched; a report on it says `cancelled`)",
  unknown: 'anything no extractor recognises (a thrown string, an unknown SDK error)',
};

/** Up to two examples per reason, from different providers: the demo's scenarios first, then HTTP answers. */
export function examplesFor(reason: FailureReason, scenariosByProvider: Map<string, Scenario[]>): string[] {
  const examples: string[] = [];
  const describe = (provider: string, scenario: Scenario) => {
    const words = providerWords(scenario);
    return words !== undefined
      ? `${provider}: ${words}`
      : `${provider}: ${cut(scenario.description.split(/[.:(]/)[0] ?? '', 70)}`;
  };
  const preferences: Array<(scenario: Scenario) => boolean> = [
    (scenario) => scenario.demo !== undefined && providerWords(scenario) !== undefined,
    (scenario) => providerWords(scenario) !== undefined,
    () => true,
  ];
  for (const preferred of preferences) {
    for (const [provider, scenarios] of scenariosByProvider) {
      if (examples.length >= 2 || examples.some((example) => example.startsWith(`${provider}:`))) continue;
      const match = scenarios.find((scenario) => scenario.expected.reason === reason && preferred(scenario));
      if (match) examples.push(describe(provider, match));
    }
  }
  const fallback = WITHOUT_PROVIDER_WORDS[reason];
  if (examples.length === 0 && fallback !== undefined) examples.push(fallback);
  return examples;
}

export function taxonomyTable(): string {
  const scenariosByProvider = new Map(
    providers().map((provider) => [provider.name, loadScenarios(provider.name)]),
  );
  const rows = [
    '| reason | category | retryable | next step | HTTP status | advice | provider words that lead to it |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [reason, row] of Object.entries(TAXONOMY) as Array<
    [FailureReason, (typeof TAXONOMY)[FailureReason]]
  >) {
    const examples = examplesFor(reason, scenariosByProvider);
    rows.push(
      `| \`${reason}\` | \`${row.category}\` | ${row.retryable ? 'yes' : 'no'} | \`${row.nextStep}\` | ${row.httpStatus} | ${cell(row.advice)} | ${examples.length > 0 ? examples.map(cell).join('<br>') : '—'} |`,
    );
  }
  return `${rows.join('\n')}\n`;
}

export interface TestedSdk {
  readonly adapter: string;
  readonly sdk: string;
  readonly version: string;
  readonly nodeRange: string;
  readonly peerRange: string;
}

/** The SDK versions each adapter's tests run (its devDependencies and their npm: aliases), with their `engines.node`. */
export function testedSdks(): TestedSdk[] {
  const tested: TestedSdk[] = [];
  for (const provider of providers()) {
    if (provider.sdk === null) continue;
    const adapterDir = join(repoRoot, 'packages', `extract-${provider.name}`);
    const manifest = JSON.parse(readFileSync(join(adapterDir, 'package.json'), 'utf8')) as {
      name: string;
      devDependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    for (const [alias, spec] of Object.entries(manifest.devDependencies ?? {})) {
      if (alias !== provider.sdk && !spec.startsWith(`npm:${provider.sdk}@`)) continue;
      const installed = join(adapterDir, 'node_modules', alias, 'package.json');
      if (!existsSync(installed)) throw new Error(`${installed} is missing: run pnpm install`);
      const sdk = JSON.parse(readFileSync(installed, 'utf8')) as {
        version: string;
        engines?: { node?: string };
      };
      tested.push({
        adapter: manifest.name,
        sdk: provider.sdk,
        version: sdk.version,
        nodeRange: sdk.engines?.node ?? '',
        peerRange: manifest.peerDependencies?.[provider.sdk] ?? '',
      });
    }
  }
  return tested.sort((a, b) => a.adapter.localeCompare(b.adapter) || semver.compare(a.version, b.version));
}

/** The Node lines a user may run (root `engines`: >= 20.19), each at its first supported release. */
export const NODE_LINES = ['20.19.0', '22.0.0', '24.0.0'] as const;

export function supportsNode(nodeRange: string, node: string): boolean {
  return nodeRange === '' || semver.satisfies(node, nodeRange);
}

export function sdkSupportTable(): string {
  const header = `| adapter | SDK | major | tested version | SDK \`engines.node\` | ${NODE_LINES.map((line) => `Node ${semver.major(line)}`).join(' | ')} |`;
  const rows = [header, `|---|---|---|---|---|${NODE_LINES.map(() => '---').join('|')}|`];
  for (const sdk of testedSdks()) {
    const marks = NODE_LINES.map((line) => (supportsNode(sdk.nodeRange, line) ? 'yes' : 'no'));
    rows.push(
      `| \`${sdk.adapter}\` | \`${sdk.sdk}\` | ${semver.major(sdk.version) === 0 ? `0.${semver.minor(sdk.version)}` : semver.major(sdk.version)} | ${sdk.version} | ${sdk.nodeRange === '' ? 'none declared' : `\`${sdk.nodeRange}\``} | ${marks.join(' | ')} |`,
    );
  }
  return `${rows.join('\n')}\n`;
}

export const GENERATED: ReadonlyArray<{
  readonly file: string;
  readonly marker: string;
  readonly render: () => string;
}> = [
  { file: 'docs/taxonomy.md', marker: 'taxonomy', render: taxonomyTable },
  { file: 'docs/sdk-support.md', marker: 'sdk-support', render: sdkSupportTable },
];

/** `text` with the part between `<!-- <marker>:start -->` and `<!-- <marker>:end -->` replaced. */
export function withGenerated(text: string, marker: string, content: string): string {
  const start = `<!-- ${marker}:start (generated: pnpm --filter @faultline/packed-install run docs) -->\n`;
  const end = `<!-- ${marker}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no "${start.trim()}" … "${end}" markers`);
  return `${text.slice(0, from + start.length)}${content}${text.slice(to)}`;
}
