import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROVIDER_LIST_FILE, readProviderList } from './provider-list.ts';

function directories(path: string): string[] {
  try {
    return readdirSync(path).filter((name) => {
      try {
        return statSync(join(path, name)).isDirectory();
      } catch {
        return false;
      }
    });
  } catch {
    return [];
  }
}

/**
 * The other direction: every `packages/extract-*` package and every provider scenario folder
 * (not starting with `_`) belongs to a provider in providers.json, so nothing escapes parity
 * by being left off the list.
 */
export function checkEverythingListed(repositoryRoot: string): string[] {
  const listed = new Set(readProviderList(repositoryRoot).providers.map((entry) => entry.name));
  const problems: string[] = [];
  for (const directory of directories(join(repositoryRoot, 'packages')).sort()) {
    if (!directory.startsWith('extract-')) continue;
    const name = directory.slice('extract-'.length);
    if (!listed.has(name)) {
      problems.push(
        `package packages/${directory} is not in ${PROVIDER_LIST_FILE}: add { "name": "${name}", "sdk": ... } so parity checks it`,
      );
    }
  }
  for (const directory of directories(join(repositoryRoot, 'packages', 'llm-mock', 'scenarios')).sort()) {
    if (directory.startsWith('_')) continue;
    if (!listed.has(directory)) {
      problems.push(
        `scenario folder packages/llm-mock/scenarios/${directory} belongs to no provider in ${PROVIDER_LIST_FILE}`,
      );
    }
  }
  return problems;
}
