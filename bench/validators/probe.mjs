// One fresh process: imports a bundled flavour (argv[2]) and parses what a first failure and a success parse; prints CPU ms.
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const t0 = cpu();
const { check } = await import(process.argv[2]);
const t1 = cpu();
const body = {
  message: 'Rate limit reached for gpt-4o-mini',
  type: 'requests',
  param: null,
  code: 'rate_limit_exceeded',
};
const report = {
  schemaVersion: 2,
  errorType: 'RateLimitError',
  message: 'x',
  category: 'transient',
  reason: 'rate_limit',
  retryable: true,
  userAction: { kind: 'wait_and_retry' },
  nextStep: 'retry',
  recovery: { rotateCredential: false, fallback: true, compress: false },
  domain: 'runtime',
  httpStatus: 429,
  provider: 'openai',
  model: null,
  retryOnlyIfIdempotent: false,
  callerAborted: false,
  providerMetadata: { origin: 'http', statusCode: 429 },
  decidedBy: { rule: 'throttle_status' },
};
let ok = 0;
ok += check.inner(body);
ok += check.inner({ message: 'x', code: 402, metadata: { raw: '{}', provider_name: 'p' } });
ok += check.report(report);
ok += check.reason('rate_limit');
ok += check.completion({
  object: 'chat.completion',
  choices: [{ finish_reason: 'stop', message: { refusal: null } }],
});
const t2 = cpu();
process.stdout.write(JSON.stringify({ imp: t1 - t0, first: t2 - t1, ok }));
