#!/usr/bin/env bash
# The scaffolder's drift check (run by .ci/run beside the build and `pnpm test`): scaffold a throwaway
# fetch-based provider into a TEMPORARY COPY of the repository, install it from the pnpm store
# the CI install filled (offline), then run parity on it and the new package's own tests, type
# check, lint and package checks there. The template is thereby tested against the living
# packages, classify's taxonomy and the workspace rules on every CI run; this checkout is never
# touched.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
name=${FAULTLINE_SCAFFOLD_NAME:-ci-throwaway}
package="@faultline/extract-$name"

step() { printf '\n-- create-extractor ci-check: %s (%ss)\n' "$*" "$SECONDS"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/faultline-scaffold-ci.XXXXXX")
cleanup() { if [ "${KEEP_SCAFFOLD_COPY:-}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
copy="$work/repo"
mkdir -p "$copy"

step "copy the working tree to $copy (no node_modules, builds, caches or .git)"
tar -C "$root" \
  --exclude=node_modules --exclude=dist --exclude=.turbo --exclude=.git --exclude=coverage --exclude=.packed \
  -cf - . | tar -C "$copy" -xf -

step "pnpm new-provider $name (into the copy)"
"$root/node_modules/.bin/tsx" tools/create-extractor/src/cli.ts "$name" --root "$copy"

cd "$copy"
step "pnpm install in the copy (offline, from the store; falls back to --prefer-offline)"
if ! pnpm install --offline --frozen-lockfile=false --reporter=append-only >"$work/install.log" 2>&1; then
  tail -20 "$work/install.log"
  echo "offline install failed; retrying with --prefer-offline"
  pnpm install --prefer-offline --frozen-lockfile=false --reporter=append-only
fi

step "parity on the scaffolded provider"
FAULTLINE_PARITY_ONLY="$name" pnpm --filter @faultline/parity test

step "the scaffolded package's own tests"
pnpm --filter "$package" test

# One program over the new package and the three the scaffolder edits (their tsconfig.json files
# are all tsconfig.base.json over src and test): @types/node, classify, render and the SDKs'
# declarations are read once instead of once per package.
step "typecheck (the new package, the CLI, the AI SDK's and LangChain's packages in one program), biome, sherif"
cat >tsconfig.scaffold-check.json <<JSON
{
  "extends": "./tsconfig.base.json",
  "compilerOptions": { "noEmit": true },
  "include": [
    "packages/extract-$name/src", "packages/extract-$name/test",
    "packages/cli/src", "packages/cli/test",
    "packages/ai-sdk/src", "packages/ai-sdk/test",
    "packages/langchain/src", "packages/langchain/test"
  ]
}
JSON
pnpm exec tsc -p tsconfig.scaffold-check.json
pnpm exec biome check "packages/extract-$name" "packages/cli/src/driver/providers/$name.ts" packages/cli/package.json \
  packages/ai-sdk/src/provider-of.ts packages/langchain/src/classify-langchain-error.ts
pnpm exec sherif

# The integrations that read every provider of providers.json: the scaffolder added the provider to
# their maps; their providers.json tests fail on a provider they lack.
step "the AI SDK's and LangChain's provider maps take '$name' in"
pnpm --filter @faultline/ai-sdk exec vitest run src/provider-of.test.ts
pnpm --filter @faultline/langchain exec vitest run src/classify-langchain-error.test.ts

# The new provider everywhere, with no edit but the scaffolder's: the one scenario driver, the
# demo (from the CLI's source), and the reliability suite (its entry points and canaries come from
# the driver); the bench enumerates the same list (DRIVEN_PROVIDERS, loadProvider).
step "the scenario driver drives every '$name' scenario to its expected classification"
pnpm --filter @faultline/scenario-driver exec vitest run -t "every $name scenario"

step "faultline demo shows '$name'"
(cd packages/cli && node --conditions=@faultline/source --import tsx src/cli.ts demo --provider "$name" --json) >"$work/demo.json"
node -e '
const rows = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const name = process.argv[2];
if (rows.length === 0 || rows.some((row) => row.provider !== name || row.report.provider !== name)) {
  console.error(`the demo has no row of its own for ${name}:`, JSON.stringify(rows).slice(0, 500));
  process.exit(1);
}
console.log(`demo: ${rows.length} row(s) for ${name}: ${rows.map((row) => row.report.reason).join(", ")}`);
' "$work/demo.json" "$name"

step "the reliability suite takes '$name' in (no canary of its driver reaches any output)"
pnpm --filter @faultline/reliability exec vitest run src/secrets.test.ts -t "^.*$name [0-9]"

step "build and package checks (publint --strict, are-the-types-wrong)"
pnpm --filter "$package" build
pnpm build:types "packages/extract-$name"
pnpm --filter "$package" lint:package

step "scaffolded provider '$name' passes"
