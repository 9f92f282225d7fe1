// workerd (bundled with esbuild, run by miniflare): one request, the outcome as JSON.
import { classifyQuota } from './classify-quota.mjs';

export default {
  /** @param {Request} _request @param {{ BASE_URL: string }} env */
  async fetch(_request, env) {
    return Response.json(await classifyQuota(env.BASE_URL));
  },
};
