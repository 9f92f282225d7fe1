import type { AttemptContext } from '@faultline/render';
import { checkOptionKeys } from '@faultline/render/toolkit';
import type { Candidate, CandidateOptions } from './fallback-chain.ts';

/**
 * Who a provider's rate limits and allowances belong to: `account` when every key of one project,
 * organization or account shares them (another key of the same account cannot help with a 429 or a
 * spent quota), `credential` when each key has its own.
 */
export type QuotaScope = 'account' | 'credential';

/** A provider's quota scope, with what holds it and where the provider says so. */
export interface QuotaScopeFact {
  readonly scope: QuotaScope;
  readonly holder: string;
  readonly source: string;
}

/**
 * What each provider says of its limits. None is per key: rotating keys of one project or
 * organization never helps with a 429 or a spent quota, only keys of another one do.
 */
export const QUOTA_SCOPES: Readonly<Record<string, QuotaScopeFact>> = {
  openai: {
    scope: 'account',
    holder: 'organization and project',
    source: 'https://platform.openai.com/docs/guides/rate-limits',
  },
  anthropic: {
    scope: 'account',
    holder: 'organization (and workspace)',
    source: 'https://docs.anthropic.com/en/api/rate-limits',
  },
  'google-genai': {
    scope: 'account',
    holder: 'Google Cloud project ("Rate limits are applied per project, not per API key")',
    source: 'https://ai.google.dev/gemini-api/docs/rate-limits',
  },
  bedrock: {
    scope: 'account',
    holder: 'AWS account, per region',
    source: 'https://docs.aws.amazon.com/bedrock/latest/userguide/quotas.html',
  },
  mistral: {
    scope: 'account',
    holder: 'workspace',
    source: 'https://admin.mistral.ai/plateforme/limits',
  },
  groq: {
    scope: 'account',
    holder: 'organization',
    source: 'https://console.groq.com/docs/rate-limits',
  },
  huggingface: {
    scope: 'account',
    holder:
      "the user or organization billed (its monthly included credits; a request billed to an organization with X-HF-Bill-To spends the organization's)",
    source: 'https://huggingface.co/docs/inference-providers/pricing',
  },
  openrouter: {
    scope: 'account',
    holder:
      'account (its credits and rate limits; "creating additional accounts or API keys will not affect your rate limits"), though a key may carry a credit limit of its own',
    source: 'https://openrouter.ai/docs/api/reference/limits',
  },
};

/** One key of a credential pool, with the call made with it. */
export interface PooledCredential<T> {
  /** A label of your choosing ("team-a", "key-2"), never the key itself: it is written to the store and events. */
  readonly credentialId: string;
  /**
   * The project, organization or account the key belongs to (a label). Keys of one account share
   * its limits where the provider's quota scope is `account`; keys without one share the pool's.
   */
  readonly account?: string | undefined;
  /** The call made with this key (a client built with it). */
  readonly call: (context: AttemptContext) => Promise<T> | T;
}

/** The quota scope of a provider: the candidate's own, else the table's, else per credential. */
export function quotaScopeOf(provider: string, own: QuotaScope | undefined): QuotaScope {
  if (own !== undefined) return own;
  return Object.hasOwn(QUOTA_SCOPES, provider)
    ? (QUOTA_SCOPES[provider] as QuotaScopeFact).scope
    : 'credential';
}

/** A candidate as the chain runs it: one key, one call, the account its limits belong to. */
export interface ResolvedCandidate<T> extends CandidateOptions<T> {
  readonly call: (context: AttemptContext) => Promise<T> | T;
  /** Keys with the same account share its limits: a cooldown or a budget of one holds for all. */
  readonly account: string;
}

export const CANDIDATE_KEYS = {
  provider: true,
  model: true,
  credentialId: true,
  call: true,
  credentials: true,
  withClassifiedErrors: true,
  extractors: true,
  contextWindow: true,
  readRateLimit: true,
  countTokens: true,
  quotaScope: true,
} as const satisfies Record<keyof CandidateOptions<unknown> | 'call' | 'credentials', true>;

const CREDENTIAL_KEYS = { credentialId: true, account: true, call: true } as const satisfies Record<
  keyof PooledCredential<unknown>,
  true
>;

/**
 * Checks the candidates (a TypeError naming `scope` and the candidate, before any call) and spreads
 * each pool into one candidate per key, in order. A key's account is its own `account`, else the
 * pool's (keys without one share it) where the provider's limits are per account, else the key
 * itself.
 */
export function resolveCandidates<T>(
  candidates: readonly Candidate<T>[],
  scope: string,
): Array<ResolvedCandidate<T>> {
  if (!Array.isArray(candidates)) throw new TypeError(`${scope}: candidates must be an array`);
  const resolved: Array<ResolvedCandidate<T>> = [];
  candidates.forEach((candidate: Candidate<T>, index) => {
    const where = `${scope}: candidates[${index}]`;
    if (candidate === null || typeof candidate !== 'object')
      throw new TypeError(`${where} must be an object`);
    checkOptionKeys(scope, candidate, CANDIDATE_KEYS, `candidates[${index}]`);
    if (typeof candidate.provider !== 'string' || typeof candidate.model !== 'string')
      throw new TypeError(`${where} needs a provider and a model (strings)`);
    const quotaScope: unknown = candidate.quotaScope;
    if (quotaScope !== undefined && quotaScope !== 'account' && quotaScope !== 'credential')
      throw new TypeError(
        `${where}.quotaScope must be 'account' or 'credential' (got ${String(quotaScope)})`,
      );
    const countTokens: unknown = candidate.countTokens;
    if (countTokens !== undefined && typeof countTokens !== 'function')
      throw new TypeError(
        `${where}.countTokens must be a function ({ signal }) => number | Promise<number> (got ${String(countTokens)})`,
      );
    const { credentials, call, ...options } = candidate;
    if (credentials === undefined) {
      if (typeof call !== 'function')
        throw new TypeError(`${where} needs a call (a function) or credentials`);
      resolved.push({ ...options, call, account: `credential:${candidate.credentialId ?? 'default'}` });
      return;
    }
    if (call !== undefined) throw new TypeError(`${where} has both a call and credentials: give one`);
    if (!Array.isArray(credentials) || credentials.length === 0)
      throw new TypeError(`${where}.credentials must be a non-empty array`);
    const perAccount = quotaScopeOf(candidate.provider, candidate.quotaScope) === 'account';
    credentials.forEach((credential: PooledCredential<T>, position) => {
      const at = `${where}.credentials[${position}]`;
      if (credential === null || typeof credential !== 'object')
        throw new TypeError(`${at} must be an object`);
      checkOptionKeys(scope, credential, CREDENTIAL_KEYS, `candidates[${index}].credentials[${position}]`);
      if (typeof credential.credentialId !== 'string' || credential.credentialId === '')
        throw new TypeError(`${at}.credentialId must be a non-empty string (a label, never the key)`);
      if (typeof credential.call !== 'function') throw new TypeError(`${at}.call must be a function`);
      if (credential.account !== undefined && typeof credential.account !== 'string')
        throw new TypeError(`${at}.account must be a string`);
      resolved.push({
        ...options,
        credentialId: credential.credentialId,
        call: credential.call,
        account: perAccount
          ? `pool:${index}:${credential.account ?? ''}`
          : `credential:${credential.credentialId}`,
      });
    });
  });
  return resolved;
}
