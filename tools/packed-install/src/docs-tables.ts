/**
 * The generated tables of the user docs: the taxonomy (docs/taxonomy.md, from classify's TAXONOMY
 * and the recorded provider answers that lead to each reason) and the supported SDK majors per
 * Node (docs/sdk-support.md, from the `engines` of the SDK versions each adapter is tested with).
 * `pnpm --filter @faultline/packed-install run docs` rewrites them; docs-tables.test.ts fails when
 * a docs file differs from what this produces.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  classificationFor,
  ErrorCategory,
  type FailureReason,
  NextStep,
  TAXONOMY,
  type TaxonomyRow,
  UserActionKind,
} from '@faultline/classify';
import { loadScenarios, type Scenario } from '@faultline/llm-mock';
import { FaultlineError, WaitKind } from '@faultline/render';
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
export function providerWords(scenario: Scenario, length = 70): string | undefined {
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
  if (message !== undefined) parts.push(`"${cut(String(message), length)}"`);
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
      `| [\`${reason}\`](reasons/${reason.replaceAll('_', '-')}.md) | \`${row.category}\` | ${row.retryable ? 'yes' : 'no'} | \`${row.nextStep}\` | ${row.httpStatus} | ${cell(row.advice)} | ${examples.length > 0 ? examples.map(cell).join('<br>') : '—'} |`,
    );
  }
  return `${rows.join('\n')}\n`;
}

/**
 * What each value of the report's closed lists means. Typed as a record over the code's own enum,
 * so a value added to classify or render fails the type check here until it is explained, and the
 * lists in the docs are written from these (a test fails when a page drifts).
 */
export const CATEGORY_MEANING: Readonly<Record<ErrorCategory, string>> = {
  transient:
    'a retry after a wait can succeed (rate limits, overload, 5xx, timeouts, refused connections). The only category retried by default.',
  ambiguous:
    'the request was sent and the answer was lost (`interrupted`); the provider may have acted on it. Retried only when you say the call is idempotent (`idempotent: true`).',
  configuration: 'a key, permission, model name or URL is wrong. No retry helps; fix it or fall back.',
  capacity:
    "the account's allowance or money is spent (`quota`, `billing`). No retry helps soon; fall back or raise the limit. A 429 whose wait is over an hour is `quota`, not `rate_limit`.",
  content: 'this input cannot be served (too long, blocked, invalid, unsupported media). Change it.',
  cancelled: "the caller's own AbortSignal fired. Nothing failed on the provider's side; nothing to retry.",
  unknown: 'not recognised, or a bug in your own code. Never retried.',
};

export const NEXT_STEP_MEANING: Readonly<Record<NextStep, string>> = {
  retry:
    'retry the same call after the wait (`retryAfterSeconds`); `withClassifiedErrors` does it for you within `retry.maxAttempts`.',
  retry_if_idempotent:
    'the request may have reached the model: repeat it only if doing it twice is safe (it becomes `retry` when you pass `idempotent: true`).',
  compress:
    "the input is over the model's window: shorten or summarise it, or move to a model with a larger window.",
  change_input: 'the provider refused this input: change it (the message says what).',
  fallback:
    'this model, key or account cannot serve now (a spent quota, an unknown model, a transient failure that outlived its retries): use another. Once a stream has delivered output a chain does not move on by default, and a row whose step is `fallback` says `fix_configuration` instead.',
  fix_configuration:
    'a key, base URL or setting is wrong: a person must fix it; retrying or falling back will not.',
  report_bug:
    'not a provider failure faultline recognises, or a bug in the calling code: report it with the panel.',
  stop: 'the call was cancelled by its caller: nothing to do.',
};

export const USER_ACTION_MEANING: Readonly<Record<UserActionKind, string>> = {
  wait_and_retry: 'wait, then try again',
  check_credentials: 'check the API key: set, valid, meant for this provider',
  contact_support: 'only the provider can lift this (an account block): contact its support',
  change_model: 'check the model name, or choose a model this key can use',
  check_configuration: 'check the base URL, region, API version and any proxy in between',
  check_billing: 'add credit, raise the plan or quota, or fix the billing details',
  change_input: 'change the input the provider refused',
  none: 'nothing: the caller cancelled',
  unknown: 'nothing known: report the failure',
};

export const WAIT_KIND_MEANING: Readonly<Record<WaitKind, string>> = {
  retry_after: "the provider's Retry-After (or rate-limit reset) before a retry can succeed",
  quota_reset: 'when a spent allowance resets: a retry before then fails again, so the call is not retried',
  provider_wait: 'a wait the provider gave on a failure no retry can fix: shown, not acted on',
};

/** The taxonomy's fallback column, in words: whether a fallback chain moves to its next candidate. */
export const FALLBACK_MEANING: Readonly<Record<TaxonomyRow['fallback'], string>> = {
  yes: "yes (a transient failure after this candidate's retries; `interrupted` only before output was delivered, unless you opt in)",
  larger_window: 'only to a candidate whose context window is larger; none larger: the chain ends at once',
  other_credential:
    'only to a candidate with another credential or provider, with a loud event (a person must still fix the key)',
  opt_in: 'only when you opt in (another provider may accept it)',
  no: 'no: no other candidate would do better',
};

function meaningList(values: readonly string[], meaning: Readonly<Record<string, string>>): string {
  return `${values.map((value) => `- \`${value}\`: ${meaning[value]}`).join('\n')}\n`;
}

export const categoryList = (): string => meaningList(ErrorCategory.options, CATEGORY_MEANING);
export const nextStepList = (): string => meaningList(NextStep.options, NEXT_STEP_MEANING);
export const userActionList = (): string => meaningList(UserActionKind.options, USER_ACTION_MEANING);
export const waitKindList = (): string => meaningList(WaitKind.options, WAIT_KIND_MEANING);

/** The recoveries a reason names, in words. */
function recoveriesOf(row: TaxonomyRow): string {
  const names = (Object.entries(row.recovery) as Array<[string, boolean]>)
    .filter(([, applies]) => applies)
    .map(([name]) => `\`${name}\``);
  return names.length === 0 ? 'none' : names.join(', ');
}

/** Every provider answer recorded for a reason, one line each, from every provider. */
function providerAnswersFor(reason: FailureReason, scenariosByProvider: Map<string, Scenario[]>): string[] {
  const lines: string[] = [];
  for (const [provider, scenarios] of scenariosByProvider) {
    for (const scenario of scenarios) {
      if (scenario.expected.reason !== reason) continue;
      const words = providerWords(scenario, 140) ?? cut(scenario.description.split(/[.:(]/)[0] ?? '', 140);
      lines.push(`- ${provider} (\`${scenario.id}\`): ${words}`);
      if (lines.length >= 12) return lines;
    }
  }
  const fallback = WITHOUT_PROVIDER_WORDS[reason];
  if (lines.length === 0 && fallback !== undefined) lines.push(`- ${fallback}`);
  return lines;
}

/** What a wait on `reason` means, read from the report render builds for it (render's one rule). */
function waitKindOf(reason: FailureReason): WaitKind {
  const classification = classificationFor(reason, { retryAfterSeconds: 1 });
  return new FaultlineError('', { classification }).toErrorReport().waitKind ?? 'provider_wait';
}

/** docs/reasons/<reason>.md, whole: what it means, what providers say, what faultline does, what to do. */
export function reasonPage(reason: FailureReason): string {
  const row = TAXONOMY[reason];
  const scenariosByProvider = new Map(
    providers().map((provider) => [provider.name, loadScenarios(provider.name)]),
  );
  const answers = providerAnswersFor(reason, scenariosByProvider);
  return `<!-- generated: pnpm --filter @faultline/packed-install run docs (from TAXONOMY and the recorded scenarios) -->
# \`${reason}\`

${row.advice}

## What faultline does

| field | value |
|---|---|
| category | \`${row.category}\`: ${CATEGORY_MEANING[row.category]} |
| retryable | ${row.retryable ? 'yes' : 'no'} |
| next step | \`${row.nextStep}\`: ${NEXT_STEP_MEANING[row.nextStep]} |
| user action | \`${row.userAction}\`: ${USER_ACTION_MEANING[row.userAction]} |
| recoveries | ${recoveriesOf(row)} |
| next candidate in a fallback chain | ${FALLBACK_MEANING[row.fallback]} |
| HTTP status to your clients | ${row.httpStatus} |
| a wait the provider gave | \`retryAfterSeconds\`, \`retryableAt\` (the ISO 8601 time it ends: the failure's time plus the wait) and \`waitKind\` (\`${waitKindOf(reason)}\`: ${WAIT_KIND_MEANING[waitKindOf(reason)]}) |

## What the providers say

The recorded answers that lead to \`${reason}\` (each is replayed through the real SDK in the tests):

${answers.join('\n')}

## How to check for it

\`\`\`ts
import { FaultlineError } from '@faultline/render';

export function is${reason.replace(/(^|_)([a-z])/g, (_match, _sep: string, letter: string) => letter.toUpperCase())}(error: unknown): boolean {
  return FaultlineError.isInstance(error) && error.toErrorReport().reason === '${reason}';
}
\`\`\`

See [the taxonomy](../taxonomy.md) for every reason.
`;
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
  { file: 'docs/taxonomy.md', marker: 'categories', render: categoryList },
  { file: 'docs/taxonomy.md', marker: 'next-steps', render: nextStepList },
  { file: 'docs/taxonomy.md', marker: 'user-actions', render: userActionList },
  { file: 'docs/taxonomy.md', marker: 'wait-kinds', render: waitKindList },
];

/** Whole generated pages: docs/reasons/<reason>.md, one per reason. */
export const GENERATED_PAGES: ReadonlyArray<{ readonly file: string; readonly render: () => string }> = (
  Object.keys(TAXONOMY) as FailureReason[]
).map((reason) => ({
  file: `docs/reasons/${reason.replaceAll('_', '-')}.md`,
  render: () => reasonPage(reason),
}));

/** `text` with the part between `<!-- <marker>:start -->` and `<!-- <marker>:end -->` replaced. */
export function withGenerated(text: string, marker: string, content: string): string {
  const start = `<!-- ${marker}:start (generated: pnpm --filter @faultline/packed-install run docs) -->\n`;
  const end = `<!-- ${marker}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`no "${start.trim()}" … "${end}" markers`);
  return `${text.slice(0, from + start.length)}${content}${text.slice(to)}`;
}
