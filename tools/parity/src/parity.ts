import type { Extractor } from '@faultline/classify';
import { FaultlineError } from '@faultline/render';
import { checkScenarioCoverage } from './check-coverage.ts';
import { checkExports, extractorOf, loadProviderModule, type ProviderModule } from './check-exports.ts';
import { checkManifest, checkPackagePresent } from './check-manifest.ts';
import { checkOptions } from './check-options.ts';
import { checkScenarioSuite } from './check-scenario-suite.ts';
import { checkStreams } from './check-streams.ts';
import {
  checkLeavesUnrelated,
  checkPlantedBodies,
  checkTotality,
  type LabelledValue,
} from './conformance.ts';
import { about, type ProviderEntry, pascalCase, readProviderList } from './provider-list.ts';
import {
  collectRealErrors,
  driverFor,
  type RealError,
  type Servers,
  scenarioDriverProblem,
  startServers,
} from './real-errors.ts';

/** The checks parity runs for every provider, in order. */
export const CHECK_NAMES = [
  'package',
  'manifest',
  'exports',
  'streams',
  'options',
  'scenarios',
  'conformance',
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export const CHECK_TITLES: Readonly<Record<CheckName, string>> = {
  package: 'has its packages/extract-<name> package',
  manifest: 'package.json follows the house template, SDK an optional peer covering its devDependencies',
  exports:
    'exports the common adapter set: PROVIDER, extractor, withClassifiedErrors, readHttpFailure, guardStream, detectBlockedAnswer, inspectResult and their option types (or says why it lacks one)',
  streams: 'exports the stream guard providers.json names, and runs it through the stream matrix',
  options:
    'runs its bound withClassifiedErrors (and stream guard) through the option matrix, every SDK major',
  scenarios:
    'has a fixture scenario for every reason it can produce (or says why it cannot), all run through the scenario suite',
  conformance:
    'passes the shared conformance suite (total, own provider key, no raw body, leaves others alone)',
};

export interface ProviderParity {
  readonly provider: ProviderEntry;
  readonly problems: Record<CheckName, string[]>;
  /** What parity could not check, and why (not failures). */
  readonly notes: string[];
  /** How many real errors of the provider's own client the conformance suite read. */
  realErrorCount: number;
}

export interface ParityOptions {
  /** Only these providers (default: every provider in providers.json). */
  readonly only?: readonly string[];
  /** Call each provider's real client at its scenarios (default true). */
  readonly realErrors?: boolean;
  /** fast-check runs per property (default 300). */
  readonly numRuns?: number;
}

/** How many real errors per provider go through the bound `withClassifiedErrors` as well. */
const BOUND_CHECKS_PER_PROVIDER = 8;

async function checkRealErrors(
  provider: ProviderEntry,
  extractor: Extractor,
  module: ProviderModule,
  realErrors: readonly RealError[],
): Promise<string[]> {
  const prefix = about(provider.name);
  const problems: string[] = [];
  let boundChecks = 0;
  for (const real of realErrors) {
    let metadata: unknown;
    try {
      metadata = extractor.extract(real.thrown);
    } catch (error) {
      problems.push(
        `${prefix} extractor.extract() threw on the real error of ${real.scenarioId}: ${(error as Error).message}`,
      );
      continue;
    }
    if (metadata === undefined) {
      problems.push(
        `${prefix} extractor does not claim the real error its own client throws for ${real.scenarioId}`,
      );
      continue;
    }
    const claimed = (metadata as { provider?: unknown }).provider;
    if (claimed !== provider.name) {
      problems.push(
        `${prefix} metadata for ${real.scenarioId} has provider ${JSON.stringify(claimed)}, expected '${provider.name}'`,
      );
    }
    const serialised = JSON.stringify(metadata);
    if (real.canary !== undefined && serialised.includes(real.canary)) {
      problems.push(`${prefix} JSON.stringify(metadata) contains the raw body planted in ${real.scenarioId}`);
    } else if (real.body.length >= 40 && serialised.includes(real.body)) {
      problems.push(`${prefix} JSON.stringify(metadata) contains the raw body of ${real.scenarioId}`);
    }
    const bound = module.withClassifiedErrors;
    if (typeof bound !== 'function' || boundChecks >= BOUND_CHECKS_PER_PROVIDER) continue;
    boundChecks += 1;
    let caught: unknown;
    try {
      await (bound as (fn: () => Promise<unknown>, options?: object) => Promise<unknown>)(real.callAgain, {
        retry: false,
      });
    } catch (error) {
      caught = error;
    }
    if (!FaultlineError.isInstance(caught)) {
      problems.push(`${prefix} withClassifiedErrors did not throw a FaultlineError for ${real.scenarioId}`);
      continue;
    }
    const faultline = caught as FaultlineError;
    if (faultline.metadata.provider !== provider.name) {
      problems.push(
        `${prefix} withClassifiedErrors is not bound to its extractor: the error of ${real.scenarioId} was read by provider ${JSON.stringify(faultline.metadata.provider)}`,
      );
    }
    const report = JSON.stringify(faultline.toErrorReport());
    if (real.canary !== undefined && report.includes(real.canary)) {
      problems.push(`${prefix} the ErrorReport of ${real.scenarioId} contains the planted raw body`);
    }
  }
  return problems;
}

/** Every real error the other providers' clients threw: none of them may be claimed by this extractor. */
function foreignErrorsFor(
  provider: string,
  realErrors: ReadonlyMap<string, readonly RealError[]>,
): LabelledValue[] {
  const foreign: LabelledValue[] = [];
  for (const [other, errors] of realErrors) {
    if (other === provider) continue;
    for (const real of errors) {
      foreign.push({ label: `a real error of provider '${other}' (${real.scenarioId})`, value: real.thrown });
    }
  }
  return foreign;
}

/**
 * Runs every parity check for every provider of `<repositoryRoot>/providers.json` (or `only`)
 * and returns the problems, each naming the provider and what is missing. Point it at a copy
 * of the repository to test parity itself.
 */
export async function runParityChecks(
  repositoryRoot: string,
  options: ParityOptions = {},
): Promise<ProviderParity[]> {
  const list = readProviderList(repositoryRoot);
  const providers = list.providers.filter(
    (entry) => options.only === undefined || options.only.includes(entry.name),
  );
  const missing = (options.only ?? []).filter((name) => !list.providers.some((entry) => entry.name === name));
  if (missing.length > 0) throw new Error(`parity: ${missing.join(', ')} not in providers.json`);

  const results: ProviderParity[] = [];
  const modules = new Map<string, ProviderModule | undefined>();
  for (const provider of providers) {
    const problems = Object.fromEntries(CHECK_NAMES.map((name) => [name, [] as string[]])) as Record<
      CheckName,
      string[]
    >;
    problems.package = checkPackagePresent(repositoryRoot, provider);
    problems.manifest = checkManifest(repositoryRoot, provider);
    const loaded = await loadProviderModule(repositoryRoot, provider);
    modules.set(provider.name, loaded.module);
    problems.exports = await checkExports(repositoryRoot, provider, loaded);
    problems.streams = checkStreams(repositoryRoot, provider, loaded.module);
    problems.options = checkOptions(repositoryRoot, provider);
    problems.scenarios = [
      ...checkScenarioCoverage(repositoryRoot, provider),
      ...checkScenarioSuite(repositoryRoot, provider),
    ];
    results.push({ provider, problems, notes: [], realErrorCount: 0 });
  }

  const realErrors = new Map<string, RealError[]>();
  let servers: Servers | undefined;
  try {
    if (options.realErrors !== false) {
      servers = await startServers();
      for (const result of results) {
        const module = modules.get(result.provider.name);
        if (module === undefined) continue;
        const driver = await driverFor(result.provider.name, module);
        if (driver === undefined) {
          result.notes.push(
            `${about(result.provider.name)} no driver calls its real client (${scenarioDriverProblem() === undefined ? 'not in tools/scenario-driver' : `tools/scenario-driver did not load: ${scenarioDriverProblem()}`}; no fetch${pascalCase(result.provider.name)} export): real-error checks skipped`,
          );
          continue;
        }
        try {
          const collected = await collectRealErrors(repositoryRoot, result.provider.name, driver, servers);
          realErrors.set(result.provider.name, collected);
          result.realErrorCount = collected.length;
        } catch (error) {
          result.notes.push(
            `${about(result.provider.name)} real errors could not be collected: ${(error as Error).message}`,
          );
        }
      }
    }
    for (const result of results) {
      const module = modules.get(result.provider.name);
      const extractor = extractorOf(module, result.provider);
      if (module === undefined || extractor === undefined) continue;
      const name = result.provider.name;
      const prefix = about(name);
      const conformance = [
        ...checkTotality(extractor, name, { numRuns: options.numRuns ?? 300 }),
        ...checkPlantedBodies(extractor, name, pascalCase(name)),
        ...checkLeavesUnrelated(extractor, foreignErrorsFor(name, realErrors)),
      ].map((problem) => `${prefix} extractor: ${problem}`);
      conformance.push(
        ...(await checkRealErrors(result.provider, extractor, module, realErrors.get(name) ?? [])),
      );
      result.problems.conformance = conformance;
    }
  } finally {
    await servers?.close();
  }
  return results;
}

/** Every problem of a parity run, one line each. */
export function allProblems(results: readonly ProviderParity[]): string[] {
  return results.flatMap((result) => CHECK_NAMES.flatMap((name) => result.problems[name]));
}
