import { describe, expect, it } from 'vitest';
import { exportList } from '../../../vitest.exports.ts';
import * as entry1 from './express.ts';
import * as entry2 from './fastify.ts';
import * as entry3 from './hono.ts';
import * as entry0 from './index.ts';

// The public surface, pinned name by name: adding, renaming or removing an export means editing
// this list too, so a change to what users can import is always deliberate.
describe('export list', { timeout: 120_000 }, () => {
  it('@faultline/http', () => {
    expect(exportList(entry0, new URL('./index.ts', import.meta.url))).toEqual({
      values: ['findFaultlineError', 'problemBody', 'problemResponseFor'],
      types: ['Disclosure', 'FaultlineHttpOptions'],
    });
  });
  it('@faultline/http/express', () => {
    expect(exportList(entry1, new URL('./express.ts', import.meta.url))).toEqual({
      values: ['faultlineErrorHandler'],
      types: [
        'ExpressErrorHandler',
        'ExpressRequestLike',
        'ExpressResponseLike',
        'FaultlineExpressOptions',
        'FaultlineHttpOptions',
      ],
    });
  });
  it('@faultline/http/fastify', () => {
    expect(exportList(entry2, new URL('./fastify.ts', import.meta.url))).toEqual({
      values: ['faultlineErrorHandler'],
      types: [
        'FastifyErrorHandler',
        'FastifyReplyLike',
        'FastifyRequestLike',
        'FaultlineFastifyOptions',
        'FaultlineHttpOptions',
      ],
    });
  });
  it('@faultline/http/hono', () => {
    expect(exportList(entry3, new URL('./hono.ts', import.meta.url))).toEqual({
      values: ['faultlineErrors'],
      types: ['FaultlineHonoOptions', 'FaultlineHttpOptions', 'HonoContextLike', 'HonoMiddleware'],
    });
  });
});
