// A browser page (bundled with esbuild for the browser): with `?base=<url>`, the one SDK error's
// outcome lands on window.faultlineOutcome; then many distinct failures' result lands on
// window.faultlineMany.
import { classifyMany } from './classify-many.mjs';
import { classifyQuota } from './classify-quota.mjs';

/** @param {unknown} error */
const crashed = (error) => ({ outcome: 'crashed', error: String(error) });
const baseURL = new URL(location.href).searchParams.get('base');
const quota =
  baseURL === null
    ? Promise.resolve()
    : classifyQuota(baseURL).then(
        (outcome) => {
          /** @type {any} */ (window).faultlineOutcome = outcome;
        },
        (error) => {
          /** @type {any} */ (window).faultlineOutcome = crashed(error);
        },
      );
quota
  .then(() => classifyMany())
  .then(
    (many) => {
      /** @type {any} */ (window).faultlineMany = many;
    },
    (error) => {
      /** @type {any} */ (window).faultlineMany = crashed(error);
    },
  );
