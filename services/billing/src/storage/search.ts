/**
 * Bill search: a case-insensitive substring of patient_name, patient_contact,
 * bill_number or patient_nic. Each bill stores the four fields lowercased (one
 * character at a time, so that the same text folds the same on every server)
 * and joined by a separator no search term holds, as `search_text`; a search
 * is then one literal substring of one field, which the embedded server
 * answers from a trigram table and MongoDB from an index it scans without
 * reading the bills.
 */
import { escapeRegExp } from '@clinic/service-kit';

export const SEARCH_FIELDS = ['patient_name', 'patient_contact', 'bill_number', 'patient_nic'] as const;

const SEPARATOR = '\u001f';

export function foldCase(text: string): string {
  let folded = '';
  for (const ch of text) folded += ch.toLowerCase();
  return folded;
}

export function searchTextOf(bill: Record<(typeof SEARCH_FIELDS)[number], string | null>): string {
  return SEARCH_FIELDS.map((field) => foldCase(bill[field] ?? '')).join(SEPARATOR);
}

/** The condition on bills that a search term puts. */
export function searchCondition(term: string): Record<string, unknown> {
  const folded = foldCase(term);
  if (!folded.includes(SEPARATOR)) return { search_text: { $regex: escapeRegExp(folded) } };
  // A term holding the separator would match across two fields of search_text: look at each field instead.
  const literal = { $regex: escapeRegExp(term), $options: 'i' };
  return { $or: SEARCH_FIELDS.map((field) => ({ [field]: literal })) };
}
