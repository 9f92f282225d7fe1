// Many distinct failures through the installed @faultline/classify, in every runtime. The inputs
// (apps/many-inputs.mjs) are written by the driver (src/run.ts `manyInputs`) from real provider
// wordings. Every runtime must hand back the digest Node 20 computes in the driver: the same
// package gives the same answers wherever it runs.
import { classify } from '@faultline/classify';
import INPUTS from './many-inputs.mjs';

/**
 * Hex SHA-256 of a text (Web Crypto: Node 20, Bun, Deno, workerd and a page served from
 * 127.0.0.1, a secure context, all have it).
 * @param {string} text
 */
async function sha256(text) {
  const hash = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(hash), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Classifies every input; answers the count, the distinct messages and reasons, and the digest of
 * the answers (every field of each classification, in order).
 */
export async function classifyMany() {
  const answers = INPUTS.map((input) => classify(input));
  return {
    count: answers.length,
    messages: new Set(INPUTS.map((input) => input.message)).size,
    reasons: new Set(answers.map((answer) => answer.reason)).size,
    digest: await sha256(JSON.stringify(answers)),
  };
}
