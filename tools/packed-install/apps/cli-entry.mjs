// Node, Bun and Deno: run straight from the installed packages, print the outcome as JSON.
import { classifyQuota } from './classify-quota.mjs';

const baseURL = process.env.FAULTLINE_BASE_URL;
if (!baseURL) throw new Error('FAULTLINE_BASE_URL is not set');
console.log(JSON.stringify(await classifyQuota(baseURL)));
