// workerd (bundled with esbuild, run by miniflare): one request, the outcome as JSON (the one SDK
// error, then many distinct failures as `many`).
import { classifyMany } from './classify-many.mjs';
import { classifyQuota } from './classify-quota.mjs';

export default {
  /** @param {Request} _request @param {{ BASE_URL: string }} env */
  async fetch(_request, env) {
    const outcome = await classifyQuota(env.BASE_URL);
    return Response.json({ ...outcome, many: await classifyMany() });
  },
};
