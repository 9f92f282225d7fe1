// Test support (not shipped: package.json `files` leaves it out): the real provider wordings the
// differential tests run on.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

function jsonFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith('.json') ? [path] : [];
  });
}

/**
 * Every string in the corpus (corpus/cases) and in every llm-mock scenario (messages, codes, types,
 * nested bodies), once each; with `bodies`, each JSON object whole too, as a body arrives.
 */
export function realTexts({ bodies }: { readonly bodies: boolean }): readonly string[] {
  const strings: string[] = [];
  const stringsOf = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) for (const item of value) stringsOf(item);
    else if (value !== null && typeof value === 'object') {
      if (bodies) strings.push(JSON.stringify(value));
      for (const item of Object.values(value)) stringsOf(item);
    }
  };
  for (const path of [
    ...jsonFiles(join(root, 'corpus/cases')),
    ...jsonFiles(join(root, 'packages/llm-mock/scenarios')),
  ]) {
    stringsOf(JSON.parse(readFileSync(path, 'utf8')) as unknown);
  }
  return [...new Set(strings)];
}
