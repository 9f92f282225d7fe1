// No validator: the floor the others are measured against (typeof checks only).
import { FAILURE_REASONS } from '../../packages/classify/src/values.ts';
export const check = {
  inner: (x) => typeof x === 'object',
  report: (x) => typeof x === 'object',
  classification: (x) => typeof x === 'object',
  reason: (x) => FAILURE_REASONS.includes(x),
  completion: (x) => typeof x === 'object',
};
