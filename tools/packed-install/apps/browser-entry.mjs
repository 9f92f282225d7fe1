// A browser page (bundled with esbuild for the browser): the outcome lands on window.faultlineOutcome.
import { classifyQuota } from './classify-quota.mjs';

const baseURL = new URL(location.href).searchParams.get('base') ?? '';
classifyQuota(baseURL).then(
  (outcome) => {
    /** @type {any} */ (window).faultlineOutcome = outcome;
  },
  (error) => {
    /** @type {any} */ (window).faultlineOutcome = { outcome: 'crashed', error: String(error) };
  },
);
