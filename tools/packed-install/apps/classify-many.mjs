// Many distinct failures through the installed @faultline/classify, in every runtime: enough of
// them that classify's literal scan moves from JavaScript to WebAssembly (after a scanner's first
// 256 scans; where the runtime refuses to compile WebAssembly it stays in JavaScript). The inputs
// (apps/many-inputs.mjs) are written by the driver (src/run.ts `manyInputs`) from real provider
// wordings. Every runtime must hand back the digest Node 20 computes in the driver.
//
// Which walk ran is seen from outside the package, without an export of its own: WebAssembly.Module
// and WebAssembly.Instance are watched (subclasses that count, installed for the run and put back
// after), so the report says whether a module was compiled, refused, or instantiated, and at which
// classification.
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
 * Counts WebAssembly compilations and instances until `stop()`; `at()` says which classification
 * (from 1) was running at the first compilation. Where the runtime has no WebAssembly at all nothing is watched.
 * @param {() => number} at
 */
function watchWebAssembly(at) {
  const seen = { compiled: 0, refused: 0, instances: 0, firstAt: -1, refusal: '' };
  const wasm = globalThis.WebAssembly;
  if (wasm === undefined) return { seen, stop() {} };
  const { Module, Instance } = wasm;
  const note = () => {
    if (seen.firstAt === -1) seen.firstAt = at();
  };
  wasm.Module = class extends Module {
    /** @param {BufferSource} bytes */
    constructor(bytes) {
      note();
      try {
        super(bytes);
      } catch (error) {
        seen.refused += 1;
        seen.refusal = String(error).slice(0, 160);
        throw error;
      }
      seen.compiled += 1;
    }
  };
  wasm.Instance = class extends Instance {
    /** @param {WebAssembly.Module} module @param {WebAssembly.Imports} [imports] */
    constructor(module, imports) {
      super(module, imports);
      seen.instances += 1;
    }
  };
  return {
    seen,
    stop() {
      wasm.Module = Module;
      wasm.Instance = Instance;
    },
  };
}

/**
 * Classifies every input; answers the count, the distinct messages, the digest of the answers
 * (every field of each classification, in order) and what was seen of WebAssembly.
 */
export async function classifyMany() {
  let done = 0;
  const watch = watchWebAssembly(() => done + 1);
  const answers = [];
  try {
    for (const input of INPUTS) {
      answers.push(classify(input));
      done += 1;
    }
  } finally {
    watch.stop();
  }
  const { seen } = watch;
  const scan =
    seen.instances > 0
      ? 'WebAssembly'
      : seen.refused > 0
        ? 'JavaScript (compiling refused)'
        : globalThis.WebAssembly === undefined
          ? 'JavaScript (no WebAssembly)'
          : 'JavaScript (never moved)';
  return {
    count: answers.length,
    messages: new Set(INPUTS.map((input) => input.message)).size,
    reasons: new Set(answers.map((answer) => answer.reason)).size,
    digest: await sha256(JSON.stringify(answers)),
    scan,
    webAssembly: seen,
  };
}
