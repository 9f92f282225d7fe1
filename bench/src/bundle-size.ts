import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

/** The goal: what wrapping one openai call with faultline adds to an app's bundle, gzipped. */
export const BUNDLE_GOAL_BYTES = 20 * 1024;

/**
 * CI's limit, above the goal until the goal is met: the weight faultline has now (with the
 * rate-limit budget read from a failure's headers, the report's `retryableAt`, and the words the
 * MCP and OpenRouter batches taught classify: a tool server's refusals, a TypeScript server's
 * schema issue list, a server's full worker pool), its schemas in valibot (whose checks a bundler
 * takes one by one, where zod/mini came as a whole core), plus a little room for the vocabularies,
 * which grow by a few hundred bytes with each corpus batch that teaches classify a new wording.
 * `pnpm bench` reports the goal itself (met or not); a feature that adds weight raises this in the
 * same change, saying so; lower it with every change that makes the code lighter.
 */
export const BUNDLE_LIMIT_BYTES = 29 * 1024;

const benchDirectory = fileURLToPath(new URL('..', import.meta.url));

/**
 * The minimal app: one openai call, wrapped or not. The SDK is external in both builds, so the
 * difference is faultline's weight alone; the call is exported so that nothing is shaken away.
 */
function app(wrapped: boolean): string {
  const call = `client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: question }] })`;
  return [
    `import OpenAI from 'openai';`,
    wrapped ? `import { withClassifiedErrors } from '@faultline/extract-openai';` : '',
    `const client = new OpenAI();`,
    `export function ask(question) {`,
    `  return ${wrapped ? `withClassifiedErrors(() => ${call})` : call};`,
    `}`,
  ].join('\n');
}

export type BundlePlatform = 'node' | 'browser';

export interface BundleRow {
  readonly platform: BundlePlatform;
  /** The app without faultline: minified and gzipped bytes. */
  readonly bareBytes: number;
  readonly bareGzipBytes: number;
  /** The app with the call wrapped. */
  readonly wrappedBytes: number;
  readonly wrappedGzipBytes: number;
  /** What faultline adds, gzipped: the figure the goal is judged on. */
  readonly addedGzipBytes: number;
  /** The packages in the wrapped bundle, heaviest first (minified bytes each contributes). */
  readonly packages: ReadonlyArray<{ name: string; bytes: number }>;
  readonly met: boolean;
}

/** `node_modules/.pnpm/<store entry>/node_modules/<name>/…` or a workspace path, as a package name. */
function packageOf(input: string): string {
  const inModules = input.split('node_modules/').at(-1)!;
  if (inModules !== input) {
    const parts = inModules.split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const workspace = /(?:^|\/)packages\/([^/]+)\//.exec(input);
  return workspace === null ? input : `@faultline/${workspace[1]}`;
}

async function bundle(
  platform: BundlePlatform,
  wrapped: boolean,
): Promise<{ code: Uint8Array; metafile: Metafile }> {
  const result = await build({
    stdin: { contents: app(wrapped), resolveDir: benchDirectory, loader: 'js', sourcefile: 'app.js' },
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    platform,
    target: 'es2022',
    metafile: true,
    logLevel: 'silent',
    // Only faultline's weight counts: the SDK the app already ships stays out of both builds.
    external: ['openai', 'openai/*'],
  });
  return { code: result.outputFiles[0]!.contents, metafile: result.metafile };
}

/**
 * Bundles the minimal app with esbuild (minified, ESM) with and without `withClassifiedErrors`
 * around its call, for Node and for the browser, from the built packages (`dist`, what a user's
 * bundler resolves): what faultline adds, gzipped, against the goal.
 */
export async function measureBundles(): Promise<BundleRow[]> {
  const rows: BundleRow[] = [];
  for (const platform of ['node', 'browser'] as const) {
    const bare = await bundle(platform, false);
    const wrapped = await bundle(platform, true);
    const byPackage = new Map<string, number>();
    for (const output of Object.values(wrapped.metafile.outputs))
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        const name = packageOf(input);
        byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
      }
    const bareGzipBytes = gzipSync(bare.code).length;
    const wrappedGzipBytes = gzipSync(wrapped.code).length;
    const addedGzipBytes = wrappedGzipBytes - bareGzipBytes;
    rows.push({
      platform,
      bareBytes: bare.code.length,
      bareGzipBytes,
      wrappedBytes: wrapped.code.length,
      wrappedGzipBytes,
      addedGzipBytes,
      packages: [...byPackage]
        .map(([name, bytes]) => ({ name, bytes }))
        .filter((row) => row.bytes > 0)
        .sort((a, b) => b.bytes - a.bytes),
      met: addedGzipBytes <= BUNDLE_GOAL_BYTES,
    });
  }
  return rows;
}

export const kilobytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
