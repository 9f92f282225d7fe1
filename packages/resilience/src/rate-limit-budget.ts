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
 * How long past a spent window's reset its successor's limit is counted here: long enough for the
 * first answers of the new window to restate the count, after which theirs holds.
 */
const NEXT_WINDOW_MS = 1_000;

/**
 * Records what a provider's rate-limit headers said of one key (`id`, a health key's store id),
 * `ageMs()` after the answer stating them arrived (read at each write, after the store's own waits):
 * the requests left until the window resets, kept for exactly as long, so that every caller (and,
 * with Redis, every process) takes from the same count. A spent window (requests or tokens, with
 * nothing left) keeps the count at 0 until its reset. A lower count from the provider replaces
 * ours; a higher one is older than ours (see below); a new window starts with the provider's.
 */
export async function recordBudget(
  store: HealthStore,
  id: string,
  budget: RateLimitBudget,
  ageMs: () => number = () => 0,
): Promise<void> {
  const requests = budget.requests;
  const spent = spentWaitSeconds(budget);
  if (spent !== undefined) {
    // A reset stated relative to the answer counts from its arrival (`ageMs`: the time since).
    const spentMs = spent * 1000 - ageMs();
    if (!(spentMs > 0)) return;
    await store.write(`left:${id}`, 0, spentMs, 'always');
    // The window after the reset admits the requests' limit: the calls that reach it before an
    // answer restates the count take from that, not from an unknown (every waiting caller at once).
    if (requests?.remaining === 0 && requests.limit !== undefined && requests.limit > 0)
      await store.write(`next:${id}`, requests.limit, spent * 1000 - ageMs() + NEXT_WINDOW_MS, 'always');
    return;
  }
  if (
    requests?.remaining === undefined ||
    requests.resetSeconds === undefined ||
    !(requests.resetSeconds * 1000 - ageMs() > 0)
  )
    return;
  // Within a window the provider's count only goes down, and answers arrive out of order: a count
  // above ours is an older one (or ours has taken calls still in flight), so ours stands.
  const [left, next] = await store.read([`left:${id}`, `next:${id}`]);
  if (left !== undefined && left.value <= requests.remaining) return;
  // The first answer of a window counts only the calls that had reached the provider: the calls
  // taken from the window's limit (`next`) are all sent, so what is left is at most what they left.
  const remaining =
    left === undefined && next !== undefined
      ? Math.min(requests.remaining, Math.max(0, next.value))
      : requests.remaining;
  const resetMs = requests.resetSeconds * 1000 - ageMs();
  if (!(resetMs > 0)) return;
  await store.write(`left:${id}`, remaining, resetMs, 'always');
}

/**
 * Takes one request from the key's budget: `allow` when no budget is known or some is left,
 * `spent` with the time to the reset otherwise (just past a spent window's reset, the new
 * window's limit is what is left). The decrement is atomic, so concurrent callers
 * never take the same last request.
 */
export async function takeBudget(store: HealthStore, id: string): Promise<BudgetTake> {
  const [left, next] = await store.read([`left:${id}`, `next:${id}`]);
  if (left === undefined) {
    if (next === undefined) return ALLOW;
    // Just past a spent window's reset, before any answer of the new one: its limit, shared.
    const after = await store.increment(`next:${id}`, next.ttlMs, -1);
    return after >= 0 ? ALLOW : { kind: 'spent', waitMs: next.ttlMs };
  }
  if (left.value <= 0) return { kind: 'spent', waitMs: left.ttlMs };
  const after = await store.increment(`left:${id}`, left.ttlMs, -1);
  return after >= 0 ? ALLOW : { kind: 'spent', waitMs: left.ttlMs };
}
