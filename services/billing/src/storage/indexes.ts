/**
 * The bills' indexes and the query shapes each serves. Queries name their
 * index (`hint`), so that MongoDB and the embedded server both take the plan
 * intended here (the embedded server answers a query from an index only when
 * the query is written on the index's fields; see tools/ferretdb/patches).
 */
import type { IndexSpec } from './database-quirks';
import type { DateRange } from '../domain/filters';

export const BILL_INDEXES = {
  number: 'bill_number_unique',
  idempotencyKey: 'idempotency_key_unique',
  dateSeq: 'bills_by_date_seq',
  /**
   * The list without a date: live bills of a branch, newest first; searches too (its last field, with
   * substringSearch). The name is older than the option and kept: databases and running replicas' hints have it.
   */
  list: 'bills_list_substring',
  /** The list of a date or a short range, the per-day totals, and the day-end report (live and cancelled bills of a date). */
  byDay: 'bills_by_day',
  /** The list of one patient's bills, or one cashier's, newest first (any other filter but search too). */
  byPatient: 'bills_by_patient',
  byBiller: 'bills_by_biller',
  days: 'bill_days_by_store',
  months: 'bill_months_by_store',
  /** The day-end report: a date's live bills per cashier, method and status, and what its Pending ones still owe. */
  dayEnd: 'bills_day_end',
  /** bill_ledger: a branch's money of a day, per user, method and kind (the drawer). */
  ledgerByDay: 'bill_ledger_by_day',
  /** bill_ledger: a branch's entries of a day by id, the pages of a ledger export. */
  ledgerExport: 'bill_ledger_export',
  /** bill_ledger: a shift's drawer, per kind and method (its close, its cash left for a refund). */
  ledgerByShift: 'bill_ledger_by_shift',
} as const;

export const BILL_INDEX_DESCRIPTIONS: IndexSpec[] = [
  { key: { bill_number: 1 }, name: BILL_INDEXES.number, unique: true },
  { key: { idempotency_key: 1 }, name: BILL_INDEXES.idempotencyKey, unique: true, sparse: true },
  { key: { bill_date: 1, bill_seq: -1 }, name: BILL_INDEXES.dateSeq },
  {
    key: {
      store_id: 1,
      is_deleted: 1,
      created_at: -1,
      id: -1,
      bill_date: 1,
      payment_method: 1,
      payment_status: 1,
      search_text: 1,
    },
    name: BILL_INDEXES.list,
    substringSearch: true,
  },
  {
    key: {
      store_id: 1,
      is_deleted: 1,
      bill_date: 1,
      created_at: -1,
      id: -1,
      payment_method: 1,
      payment_status: 1,
      grand_total_cents: 1,
      discount_cents: 1,
      subtotal_cents: 1,
    },
    name: BILL_INDEXES.byDay,
  },
  {
    key: {
      store_id: 1,
      is_deleted: 1,
      bill_date: 1,
      billed_by: 1,
      payment_method: 1,
      payment_status: 1,
      grand_total_cents: 1,
      discount_cents: 1,
      subtotal_cents: 1,
      paid_cents: 1,
    },
    name: BILL_INDEXES.dayEnd,
  },
  personIndex('patient_id', BILL_INDEXES.byPatient),
  personIndex('billed_by', BILL_INDEXES.byBiller),
];

/**
 * A branch's live bills of one person, newest first, then the list's other
 * filters: the embedded server answers a filter from indexes only when every
 * field it names is in one.
 */
function personIndex(field: 'patient_id' | 'billed_by', name: string): IndexSpec {
  return {
    key: {
      store_id: 1,
      is_deleted: 1,
      [field]: 1,
      created_at: -1,
      id: -1,
      bill_date: 1,
      payment_method: 1,
      payment_status: 1,
    },
    name,
  };
}

/** bill_days: the days and the whole months of a branch, with their version tokens (day-totals.ts). */
export const BILL_DAYS_INDEX_DESCRIPTIONS: IndexSpec[] = [
  { key: { store_id: 1, bill_date: 1 }, name: BILL_INDEXES.days },
  { key: { month_of_store: 1, month: 1 }, name: BILL_INDEXES.months },
];

export const LEDGER_INDEX_DESCRIPTIONS: IndexSpec[] = [
  { key: { store_id: 1, day: 1, collector: 1, method: 1, kind: 1, amount_cents: 1 }, name: BILL_INDEXES.ledgerByDay },
  { key: { store_id: 1, day: 1, _id: 1 }, name: BILL_INDEXES.ledgerExport },
  { key: { shift_id: 1, kind: 1, method: 1, amount_cents: 1 }, name: BILL_INDEXES.ledgerByShift },
];

/** Indexes of earlier versions, which no query uses any more. */
export const OBSOLETE_BILL_INDEXES = ['bills_by_store_recent', 'bills_by_store_date'];

/** The bill_date condition of a range: an exact date wins over from/to. */
export function dateCondition(range: DateRange): Record<string, unknown> {
  if (range.date) return { bill_date: range.date };
  const bounds: Record<string, string> = {};
  if (range.from_date) bounds.$gte = range.from_date;
  if (range.to_date) bounds.$lte = range.to_date;
  return Object.keys(bounds).length > 0 ? { bill_date: bounds } : {};
}

/**
 * The bill_date condition of a page of the list (not of its count): a range
 * listed from the by-day index is written as its dates. Both servers then read
 * each date's first rows in the index's order (newest first) and merge them,
 * MongoDB as it merges the sorted index scans of an `$in`, the embedded server
 * by its patch 0015, so that a page costs its rows, not the range's: a range
 * reads every bill of every day it spans to sort them.
 */
export function listDateCondition(range: DateRange): Record<string, unknown> {
  if (range.date || !range.from_date || !range.to_date || listIndexFor(range) !== BILL_INDEXES.byDay)
    return dateCondition(range);
  const dates: string[] = [];
  for (let day = Date.parse(range.from_date); day <= Date.parse(range.to_date); day += 86_400_000)
    dates.push(new Date(day).toISOString().slice(0, 10));
  return { bill_date: { $in: dates } };
}

/** Ranges up to this many days are listed from the by-day index; longer ones in list order. */
const SHORT_RANGE_DAYS = 62;

/** The index a list query without a search reads: a patient's or a cashier's bills are read from their own. */
export function listIndexFor(range: DateRange & { patient_id?: number; billed_by?: number }): string {
  if (range.patient_id !== undefined) return BILL_INDEXES.byPatient;
  if (range.billed_by !== undefined) return BILL_INDEXES.byBiller;
  if (range.date) return BILL_INDEXES.byDay;
  if (range.from_date && range.to_date) {
    const days = (Date.parse(range.to_date) - Date.parse(range.from_date)) / 86_400_000;
    if (days <= SHORT_RANGE_DAYS) return BILL_INDEXES.byDay;
  }
  return BILL_INDEXES.list;
}
