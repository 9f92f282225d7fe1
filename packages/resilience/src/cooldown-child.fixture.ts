// A second process for redis-health-store.test.ts: one chain with one candidate, sharing its health
// through Redis. Run as `node --conditions=@faultline/source --import tsx cooldown-child.fixture.ts
// <redisUrl> <prefix> <baseUrl>`; prints what happened as one JSON line.
import { withClassifiedErrors } from '@faultline/extract-openai';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { FallbackChainError, HealthRegistry, RedisHealthStore, runWithFallback } from './index.ts';

const [redisUrl, prefix, baseURL] = process.argv.slice(2);
if (redisUrl === undefined || prefix === undefined || baseURL === undefined) {
  throw new Error('usage: cooldown-child.fixture.ts <redisUrl> <prefix> <baseUrl>');
}
const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
const registry = new HealthRegistry({ store: new RedisHealthStore(redis, { prefix, timeoutMs: 2000 }) });
const client = new OpenAI({ apiKey: 'sk-test-child', maxRetries: 0, baseURL });
try {
  await runWithFallback(
    [
      {
        provider: 'openai',
        model: 'gpt-4o',
        credentialId: 'shared-key',
        withClassifiedErrors,
        call: ({ signal }) =>
          client.chat.completions.create(
            { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] },
            { signal },
          ),
      },
    ],
    { registry, retry: false, maxCooldownWaitMs: 0 },
  );
  console.log(JSON.stringify({ outcome: 'succeeded' }));
} catch (error) {
  const candidates = FallbackChainError.isInstance(error) ? (error as FallbackChainError).candidates : [];
  console.log(
    JSON.stringify({
      outcome: 'failed',
      reason: (error as FallbackChainError).classification?.reason,
      candidates: candidates.map((candidate) => ({ status: candidate.status, skipped: candidate.skipped })),
    }),
  );
} finally {
  redis.disconnect();
}
