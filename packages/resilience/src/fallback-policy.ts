import { type FailureReason, TAXONOMY, type TaxonomyRow } from '@faultline/classify';

/**
 * What a failure asks of the next candidate: move on (`yes`), move on only to a candidate whose
 * context window is larger (`larger_window`) or that holds another credential or provider
 * (`other_credential`), or stop (`no`). Read from the taxonomy's fallback column (DESIGN's "Acting
 * across calls"), with the caller's `fallbackOn` turning an `opt_in` row on or any row off.
 */
export function fallbackRule(
  reason: FailureReason,
  fallbackOn: Partial<Record<FailureReason, boolean>> | undefined,
): Exclude<TaxonomyRow['fallback'], 'opt_in'> {
  const rule = TAXONOMY[reason]?.fallback ?? 'no';
  const override = fallbackOn?.[reason];
  if (rule === 'no' || override === false) return 'no';
  if (rule === 'opt_in') return override === true ? 'yes' : 'no';
  return rule;
}
