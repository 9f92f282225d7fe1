// Node, Bun and Deno: run straight from the installed packages, print the outcome as JSON: the one
// SDK error (classify-quota.mjs) when FAULTLINE_BASE_URL is set, then many distinct failures
// (classify-many.mjs) as `many`.
import { classifyMany } from './classify-many.mjs';
import { classifyQuota } from './classify-quota.mjs';

const baseURL = process.env.FAULTLINE_BASE_URL;
const outcome = baseURL ? await classifyQuota(baseURL) : { outcome: 'not asked' };
console.log(JSON.stringify({ ...outcome, many: await classifyMany() }));
