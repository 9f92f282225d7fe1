import { MODEL_CATALOG_DATA } from './model-catalog-data.ts';

export { MODEL_CATALOG_SOURCE } from './model-catalog-data.ts';

/** What a model's provider declares of its limits, in tokens. */
export interface ModelLimits {
  readonly contextWindow: number;
  readonly maxOutputTokens?: number | undefined;
}

/** Looks a model's limits up by provider and model id: the shipped catalog, or one of your own. */
export type ModelCatalog = (provider: string, model: string) => ModelLimits | undefined;

/**
 * faultline's provider keys (and other spellings users pass) for the catalog's provider ids,
 * which are models.dev's and the AI SDK's.
 */
const PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  'google-genai': 'google',
  gemini: 'google',
  bedrock: 'amazon-bedrock',
  mistralai: 'mistral',
};

/** A dated snapshot id (`-2024-08-06`, `-20250514`) names the same model as its alias. */
const DATE_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * The limits the shipped catalog (a dated snapshot of models.dev, `MODEL_CATALOG_SOURCE`) states
 * for a model: looked up as given, then without a `models/` prefix (Gemini's resource names), then
 * without a date suffix (a dated snapshot of a listed alias). Undefined for a model it does not
 * list: a model unknown to the catalog is never guessed at.
 */
export const modelLimits: ModelCatalog = (provider, model) => {
  if (typeof provider !== 'string' || typeof model !== 'string') return undefined;
  const key = PROVIDER_ALIASES[provider] ?? provider;
  const models = Object.hasOwn(MODEL_CATALOG_DATA, key) ? MODEL_CATALOG_DATA[key] : undefined;
  if (models === undefined) return undefined;
  const bare = model.startsWith('models/') ? model.slice('models/'.length) : model;
  for (const id of [model, bare, bare.replace(DATE_SUFFIX, '')]) {
    if (!Object.hasOwn(models, id)) continue;
    const [contextWindow, maxOutputTokens] = models[id] as readonly [number, number?];
    return maxOutputTokens === undefined ? { contextWindow } : { contextWindow, maxOutputTokens };
  }
  return undefined;
};
