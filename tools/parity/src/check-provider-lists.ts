import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { PROVIDER_LIST_FILE, readProviderList } from './provider-list.ts';

/**
 * The files allowed to name providers in a list of their own, and why. Each is a capability list
 * (what one package can do for some providers, in that package's own types or hand-written
 * per-provider data), never "every provider": a new provider is rightly missing from it until
 * someone teaches that package the provider. Everything else that enumerates providers reads providers.json, through
 * @faultline/cli/driver (PROVIDERS, PROVIDER_NAMES) or @faultline/scenario-driver
 * (DRIVEN_PROVIDERS, loadProvider, loadAdapter, loadDriver).
 */
export const CAPABILITY_LISTS: Readonly<Record<string, string>> = {
  'packages/llm-mock/src/providers.ts':
    'the wire formats the mock server speaks, one hand-written format each',
  'packages/llm-mock/test/sdk-clients.ts':
    "the mock's own tests: the SDK calls each wire format is tried with",
  'packages/cli/src/ai-sdk-rows.ts':
    'the providers the demo replays through the Vercel AI SDK, one @ai-sdk/* model each (a provider without one has no AI SDK row)',
  'packages/ai-sdk/src/provider-of.ts': 'the providers the AI SDK adapter recognises in an APICallError',
  'packages/resilience/src/credential-pool.ts':
    "who holds each provider's limits (account or key), with the page that says so; a provider not in it (a local server) has no quota to share",
  'packages/resilience/src/model-catalog-data.ts':
    "the models.dev snapshot's context windows and output caps, keyed by models.dev's own provider ids; a provider it lacks has no declared window",
  'packages/resilience/scripts/update-model-catalog.ts':
    'the models.dev provider directories the catalog snapshot is generated from',
  'packages/ai-sdk/src/extract-ai-sdk.ts': 'the providers whose AI SDK errors carry an enveloped body',
  'packages/ai-sdk/src/test-support.ts': "the @ai-sdk/* packages the adapter's tests drive, one per provider",
  'packages/langchain/src/classify-langchain-error.ts':
    'the providers the LangChain adapter recognises, each with its @langchain/* error shapes',
  'packages/langchain/src/test-support.ts': "the @langchain/* packages the adapter's tests drive",
  'bench/src/error-path.ts': 'a rate-limit error constructed through each SDK, hand-written per SDK',
  'bench/src/stream-guard.ts': 'recorded stream chunks of each provider, hand-written per wire format',
  'bench/src/stream-server-worker.ts':
    "each provider's stream wire encoding (SSE framing, Bedrock event-stream frames), hand-written per wire format",
};

const ROOTS = ['packages', 'tools', 'bench', 'test-fixtures', 'examples'];
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', '.turbo', 'coverage', 'scenarios']);

function sourceFiles(directory: string, found: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return found;
  }
  for (const name of names.sort()) {
    if (SKIPPED_DIRECTORIES.has(name)) continue;
    const path = join(directory, name);
    let isDirectory = false;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      continue;
    }
    if (isDirectory) sourceFiles(path, found);
    else if (/\.(?:m|c)?tsx?$/.test(name) && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

/** One literal that names several providers: where it is, and the names. */
export interface ProviderListLiteral {
  readonly file: string;
  readonly line: number;
  readonly names: readonly string[];
}

function propertyKey(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name))
    return name.text;
  return undefined;
}

/** The string a table row names its provider by: its `provider`, `name` or `key` property. */
function rowProvider(element: ts.Expression): string | undefined {
  if (!ts.isObjectLiteralExpression(element)) return undefined;
  for (const property of element.properties) {
    if (!ts.isPropertyAssignment(property)) continue;
    const key = propertyKey(property.name);
    if ((key === 'provider' || key === 'name' || key === 'key') && ts.isStringLiteral(property.initializer))
      return property.initializer.text;
  }
  return undefined;
}

/**
 * What an array, object or union type literal lists (its string elements, table rows' provider
 * names, keys or members), as [every entry, the provider names among them].
 */
function entriesOf(node: ts.Node): string[] {
  const text = (expression: ts.Node): string =>
    ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)
      ? expression.text
      : ((ts.isExpression(expression) ? rowProvider(expression) : undefined) ?? '');
  if (ts.isArrayLiteralExpression(node)) return node.elements.map(text);
  if (ts.isObjectLiteralExpression(node))
    return node.properties.map((property) =>
      property.name === undefined ? '' : (propertyKey(property.name) ?? ''),
    );
  if (ts.isUnionTypeNode(node))
    return node.types.map((member) =>
      ts.isLiteralTypeNode(member) && ts.isStringLiteral(member.literal) ? member.literal.text : '',
    );
  if (ts.isTypeLiteralNode(node))
    return node.members.map((member) => (member.name === undefined ? '' : (propertyKey(member.name) ?? '')));
  return [];
}

/**
 * The provider names a literal lists, when it is a provider list: at least `threshold` of them,
 * and at least half of its entries (a table of secret formats that happens to have an `openai`
 * key among a dozen others is not one).
 */
function namesOf(node: ts.Node, providers: ReadonlySet<string>, threshold: number): string[] {
  const entries = entriesOf(node);
  const names = [...new Set(entries.filter((entry) => providers.has(entry)))];
  return names.length >= threshold && names.length * 2 >= entries.length ? names : [];
}

/**
 * Every array, object or union literal in the workspace's TypeScript that names at least
 * `threshold` providers of providers.json: a provider list written out by hand.
 */
export function findProviderLists(repositoryRoot: string, threshold = 3): ProviderListLiteral[] {
  const providers = new Set(readProviderList(repositoryRoot).providers.map((entry) => entry.name));
  const found: ProviderListLiteral[] = [];
  for (const root of ROOTS) {
    for (const path of sourceFiles(join(repositoryRoot, root))) {
      const text = readFileSync(path, 'utf8');
      // Cheap filter first: a file that quotes fewer than `threshold` provider names holds no list.
      let quoted = 0;
      for (const name of providers) if (text.includes(name)) quoted += 1;
      if (quoted < threshold) continue;
      const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      const visit = (node: ts.Node) => {
        const names = namesOf(node, providers, threshold);
        if (names.length > 0) {
          found.push({
            file: relative(repositoryRoot, path),
            line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
            names,
          });
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return found;
}

/**
 * Fails for every provider list of its own outside CAPABILITY_LISTS (read providers.json
 * instead), and for a registered file that holds no provider list (the registry stays exact).
 */
export function checkProviderLists(
  repositoryRoot: string,
  capabilityLists: Readonly<Record<string, string>> = CAPABILITY_LISTS,
): string[] {
  const problems: string[] = [];
  const lists = findProviderLists(repositoryRoot);
  for (const list of lists) {
    if (capabilityLists[list.file] !== undefined) continue;
    problems.push(
      `${list.file}:${list.line} lists providers of its own (${list.names.join(', ')}): read ${PROVIDER_LIST_FILE} (@faultline/cli/driver PROVIDER_NAMES, @faultline/scenario-driver DRIVEN_PROVIDERS, loadProvider, loadAdapter), or register the file in tools/parity/src/check-provider-lists.ts CAPABILITY_LISTS with why it is a capability list`,
    );
  }
  for (const file of Object.keys(capabilityLists)) {
    if (!lists.some((list) => list.file === file)) {
      problems.push(`CAPABILITY_LISTS registers ${file}, which holds no provider list: remove it`);
    }
  }
  return problems;
}
