/**
 * Bill search: a case-insensitive substring of patient_name, patient_contact,
 * bill_number or patient_nic. Each bill stores the four fields lowercased (one
 * character at a time, so that the same text folds the same on every server)
 * and joined by a control character no search term may hold, as `search_text`; a search
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

/** The condition on bills that a search term puts (a term never holds the separator: see parseListQuery). */
export function searchCondition(term: string): Record<string, unknown> {
  return { search_text: { $regex: escapeRegExp(foldCase(term)) } };
}
