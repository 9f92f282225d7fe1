#!/usr/bin/env node
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { REPOSITORY_ROOT, scaffoldProvider } from './scaffold.ts';

const USAGE = `Usage: pnpm new-provider <name> [--sdk <npm-name> --sdk-version <x.y.z> [--driver <file>]] [--title "<Name>"] [--root <repo>]

  <name>          the provider key, kebab-case (acme, google-genai)
  --sdk           the npm name of the SDK the extractor reads (an optional peer + devDependency);
                  without it, a fetch-based provider with its own small client is scaffolded
  --sdk-version   the exact SDK version the tests run against
  --driver        with --sdk: the driver module that calls the SDK against a loopback URL
                  (export default defineDriver({ ... }), see packages/cli/src/driver/define.ts),
                  copied to packages/cli/src/driver/providers/<name>.ts; not needed when that file
                  is already there. The new package's tests call the SDK through it.
  --title         the provider's name for people (default: from the key)
  --root          the repository to scaffold into (default: this one)`;

function main(): number {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        sdk: { type: 'string' },
        'sdk-version': { type: 'string' },
        driver: { type: 'string' },
        title: { type: 'string' },
        root: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  const name = positionals[0]!;
  const repositoryRoot = typeof values.root === 'string' ? values.root : REPOSITORY_ROOT;
  try {
    const result = scaffoldProvider({
      repositoryRoot,
      name,
      sdk: values.sdk as string | undefined,
      sdkVersion: values['sdk-version'] as string | undefined,
      title: values.title as string | undefined,
      driver: values.driver as string | undefined,
    });
    console.log(`Scaffolded provider '${name}':`);
    for (const file of result.files) console.log(`  ${file}`);
    if (result.unplaced.length > 0) {
      console.log('\nNot placed (their anchors were not found; add them by hand):');
      for (const entry of result.unplaced) console.log(`  ${entry}`);
    }
    const where = relative(repositoryRoot, result.packageDirectory);
    console.log(`
Next (CONTRIBUTING.md):
  pnpm install                              # link the new package${values.sdk ? ` and install ${values.sdk}` : ''}
  pnpm --filter @faultline/extract-${name} test    # its tests${values.sdk ? ` (the real ${values.sdk}: green once the extractor reads its errors)` : ', green as scaffolded'}
  pnpm --filter @faultline/parity test       # the parity meta-test
Then replace the template's error body and scenarios in ${where} and packages/llm-mock/scenarios/${name}
with ${name}'s real ones.${
      values.sdk
        ? `
Its tests call ${values.sdk} through packages/cli/src/driver/providers/${name}.ts: teach the extractor the
SDK's errors until src/extract-${name}.test.ts and src/option-matrix.test.ts pass. If ${name} streams,
write its guard (render's guardStream with a readChunk for its chunks; add "streamGuard" to
providers.json, drain streams through it in the driver module, run it through test-fixtures'
streamMatrix and the option matrix's \`stream\`, and add it to src/option-keys.test.ts); llm-mock plays SSE,
NDJSON ('ndjson', ndjsonFrame) and AWS event-stream answers. For \`faultline mock\`, teach
packages/llm-mock/src/providers.ts its API (and test/sdk-clients.ts its SDK's calls); give
tools/packed-install/apps/mock-catalogue.mjs its SDK call.`
        : ''
    }`);
    return 0;
  } catch (error) {
    console.error((error as Error).message);
    return 1;
  }
}

process.exitCode = main();
