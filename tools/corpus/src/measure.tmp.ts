import { writeFileSync } from 'node:fs';
import { loadCorpus } from './case.ts';
import { isGeminiResponseLeak } from './paths.ts';
import { runCorpus } from './run.ts';

process.on('unhandledRejection', (e) => {
  if (!isGeminiResponseLeak(e)) throw e;
});
const paths = (process.env.PATHS ?? 'vendor,ai-sdk,langchain').split(',') as any;
const cases = loadCorpus(
  undefined,
  process.env.CORPUS_GROUPS ? process.env.CORPUS_GROUPS.split(',') : undefined,
);
const t0 = Date.now();
const results = await runCorpus(cases, { paths });
const dt = Date.now() - t0;
for (const path of paths) {
  const r = results.filter((x) => x.path === path);
  const pct = (f: string) => ((100 * r.filter((x: any) => x.hits[f]).length) / r.length).toFixed(1);
  console.log(
    path,
    r.length,
    'decision',
    pct('decision'),
    'reason',
    pct('reason'),
    'userAction',
    pct('userAction'),
    'nextStep',
    pct('nextStep'),
  );
}
console.log('ms', dt);
writeFileSync(
  process.env.OUT ?? '/tmp/corpus-results.json',
  JSON.stringify(
    results.map((x) => ({
      id: x.case.id,
      path: x.path,
      sdk: x.case.sdk,
      stream: x.case.scenario.stream === true,
      got: x.got,
      label: x.case.label,
      hits: x.hits,
    })),
  ),
);
