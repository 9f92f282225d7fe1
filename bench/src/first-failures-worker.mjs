// One fresh process of the first-failures measurement (started by first-failures.ts), as a
// serverless function or a CLI meets its first failures: the SDKs and faultline's adapters are
// imported, the real SDKs fail against the loopback server, and only then does the clock start on
// faultline's work: each failure classified and its report built, through the adapters' public
// `withClassifiedErrors`.
//
// Plain JavaScript run by plain `node`, on the built packages a user installs: a TypeScript loader
// would sit in the timed path (its hooks run on every module faultline loads lazily) and would
// resolve the packages' `src` under the workspace's source condition.
//
// argv[2]: JSON { failures: [{ id, provider, baseUrl, expectedReason }], healthyUrl?, warm? }.
// stdout: one JSON line (see the `result` object at the end).

const request = JSON.parse(process.argv[2]);

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** Both clocks around `run`: CPU time (every thread of the process) and wall time, in ms. */
async function clocked(run) {
  const cpu = cpuMs();
  const wall = performance.now();
  const value = await run();
  return { value, cpuMs: cpuMs() - cpu, wallMs: performance.now() - wall };
}

// An application has imported its SDKs before its first call; faultline's adapters after them, so
// that their own import is timed apart (shown beside the first failures: work an adapter moved to
// import time still counts).
const [openaiSdk, anthropicSdk, googleSdk] = await Promise.all([
  import('openai'),
  import('@anthropic-ai/sdk'),
  import('@google/genai'),
]);
const imported = await clocked(() =>
  Promise.all([
    import('@faultline/extract-openai'),
    import('@faultline/extract-anthropic'),
    import('@faultline/extract-google-genai'),
  ]),
);
const [openaiAdapter, anthropicAdapter, googleAdapter] = imported.value;

const PROMPT = 'faultline bench prompt: say hello';
// Generous: the loopback server answers at once, but this machine may be busy; no SDK retries.
const TIMEOUT_MS = 30_000;

/** Each provider: its adapter and one real call through its SDK (a stream drained to its end). */
const providers = {
  openai: {
    adapter: openaiAdapter,
    call(baseUrl) {
      const client = new openaiSdk.default({
        apiKey: 'sk-bench-canary',
        baseURL: baseUrl,
        timeout: TIMEOUT_MS,
        maxRetries: 0,
      });
      return client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: PROMPT }],
      });
    },
  },
  anthropic: {
    adapter: anthropicAdapter,
    async call(baseUrl, stream) {
      const client = new anthropicSdk.default({
        apiKey: 'sk-ant-bench-canary',
        baseURL: baseUrl,
        timeout: TIMEOUT_MS,
        maxRetries: 0,
      });
      const body = {
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        messages: [{ role: 'user', content: PROMPT }],
      };
      if (stream !== true) return client.messages.create(body);
      const chunks = [];
      for await (const chunk of await client.messages.create({ ...body, stream: true })) chunks.push(chunk);
      return chunks;
    },
  },
  'google-genai': {
    adapter: googleAdapter,
    call(baseUrl) {
      const client = new googleSdk.GoogleGenAI({
        apiKey: 'AIzaBenchCanary000000000000000000000000',
        httpOptions: { baseUrl, timeout: TIMEOUT_MS },
      });
      return client.models.generateContent({ model: 'gemini-2.5-flash', contents: PROMPT });
    },
  },
};

/** What the real SDK throws for `failure`, caught before any faultline code runs on it. */
async function sdkError(failure) {
  try {
    await providers[failure.provider].call(failure.baseUrl, failure.stream);
  } catch (error) {
    return error;
  }
  throw new Error(`bench: ${failure.id} did not fail`);
}

/** A failure classified and its report built, as a user's code meets it: the adapter's wrapper. */
async function reportOf(provider, error) {
  let calls = 0;
  const classified = await providers[provider].adapter
    .withClassifiedErrors(
      () => {
        calls += 1;
        return Promise.reject(error);
      },
      // Explicit, whatever the default: a retry would time faultline's backoff, not its work.
      { retry: false },
    )
    .then(
      () => undefined,
      (thrown) => thrown,
    );
  if (calls !== 1 || classified === undefined) throw new Error(`bench: ${provider}: one call, one failure`);
  return classified.toErrorReport();
}

const errors = [];
for (const failure of request.failures) errors.push(await sdkError(failure));

// The timed part: the five first failures, one after another, nothing else in between.
const perFailure = [];
const total = await clocked(async () => {
  for (let index = 0; index < errors.length; index += 1) {
    const failure = request.failures[index];
    perFailure.push(await clocked(() => reportOf(failure.provider, errors[index])));
  }
});

// Checked after the clock: each report says what the scenario expects, so what was timed is the
// real decision, not a fall-through.
const reasons = perFailure.map(({ value }) => value.reason);
request.failures.forEach((failure, index) => {
  if (reasons[index] !== failure.expectedReason)
    throw new Error(`bench: ${failure.id} reported ${reasons[index]}, expected ${failure.expectedReason}`);
});

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

// Warm, in the same process once the first failures are done: each failure's path again, against
// the fastest real call in the bench (a healthy chat completion through the real openai SDK from
// the loopback server). Interleaved in rounds, the share taken within each round (so that a burst
// of load on a shared machine moves both sides) and its median over the rounds reported. Wall
// time, what the caller waits; the failures' CPU time beside it.
let warm;
if (request.warm === true) {
  const ROUNDS = 25;
  const BATCH = 200;
  const CALLS = 20;
  const client = new openaiSdk.default({
    apiKey: 'sk-bench-canary',
    baseURL: request.healthyUrl,
    timeout: TIMEOUT_MS,
    maxRetries: 0,
  });
  const call = () =>
    client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: PROMPT }] });
  for (let index = 0; index < errors.length; index += 1)
    for (let repeat = 0; repeat < 5 * BATCH; repeat += 1)
      await reportOf(request.failures[index].provider, errors[index]);
  for (let repeat = 0; repeat < 5 * CALLS; repeat += 1) await call();
  const rounds = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const failures = [];
    for (let index = 0; index < errors.length; index += 1) {
      const { provider } = request.failures[index];
      const batch = await clocked(async () => {
        for (let repeat = 0; repeat < BATCH; repeat += 1) await reportOf(provider, errors[index]);
      });
      failures.push({ wallMs: batch.wallMs / BATCH, cpuMs: batch.cpuMs / BATCH });
    }
    const calls = [];
    for (let repeat = 0; repeat < CALLS; repeat += 1) calls.push((await clocked(call)).wallMs);
    const callMs = median(calls);
    rounds.push({ failures, callMs, share: Math.max(...failures.map((failure) => failure.wallMs)) / callMs });
  }
  warm = {
    rounds: ROUNDS,
    failureWallMs: errors.map((_, index) => median(rounds.map((round) => round.failures[index].wallMs))),
    failureCpuMs: errors.map((_, index) => median(rounds.map((round) => round.failures[index].cpuMs))),
    callMs: median(rounds.map((round) => round.callMs)),
    share: median(rounds.map((round) => round.share)),
  };
}

process.stdout.write(
  `${JSON.stringify({
    importCpuMs: imported.cpuMs,
    importWallMs: imported.wallMs,
    totalCpuMs: total.cpuMs,
    totalWallMs: total.wallMs,
    perFailure: perFailure.map(({ cpuMs: cpu, wallMs: wall }) => ({ cpuMs: cpu, wallMs: wall })),
    reasons,
    warm,
  })}\n`,
);
