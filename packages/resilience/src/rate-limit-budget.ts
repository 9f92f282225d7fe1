import type { RateLimitBudget } from '@faultline/classify';
import { spentWaitSeconds } from '@faultline/classify/toolkit';
import type { HealthStore } from './health-store.ts';

/** What a key's rate-limit budget allows one call now. */
export type BudgetTake =
  | { readonly kind: 'allow' }
  /** The provider said the key is spent: it refills in `waitMs`. */
  | { readonly kind: 'spent'; readonly waitMs: number };

const ALLOW: BudgetTake = { kind: 'allow' };

/**
 * Records what a provider's rate-limit headers said of one key (`id`, a health key's store id):
 * the requests left until the window resets, kept for exactly as long, so that every caller (and,
 * with Redis, every process) takes from the same count. A spent window (requests or tokens, with
 * nothing left) keeps the count at 0 until its reset. A lower count from the provider replaces
 * ours; a higher one is older than ours (see below); a new window starts with the provider's.
 */
export async function recordBudget(store: HealthStore, id: string, budget: RateLimitBudget): Promise<void> {
  const requests = budget.requests;
  const spent = spentWaitSeconds(budget);
  if (spent !== undefined) {
    if (spent > 0) await store.write(`left:${id}`, 0, spent * 1000, 'always');
    return;
  }
  if (
    requests?.remaining === undefined ||
    requests.resetSeconds === undefined ||
    !(requests.resetSeconds > 0)
  )
    return;
  // Within a window the provider's count only goes down, and answers arrive out of order: a count
  // above ours is an older one (or ours has taken calls still in flight), so ours stands.
  const [left] = await store.read([`left:${id}`]);
  if (left !== undefined && left.value <= requests.remaining) return;
  await store.write(`left:${id}`, requests.remaining, requests.resetSeconds * 1000, 'always');
}

/**
 * Takes one request from the key's budget: `allow` when no budget is known or some is left,
 * `spent` with the time to the reset otherwise. The decrement is atomic, so concurrent callers
 * never take the same last request.
 */
export async function takeBudget(store: HealthStore, id: string): Promise<BudgetTake> {
  const [left] = await store.read([`left:${id}`]);
  if (left === undefined) return ALLOW;
  if (left.value <= 0) return { kind: 'spent', waitMs: left.ttlMs };
  const after = await store.increment(`left:${id}`, left.ttlMs, -1);
  return after >= 0 ? ALLOW : { kind: 'spent', waitMs: left.ttlMs };
}
