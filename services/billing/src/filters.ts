/**
 * What the reads of bills take, in the spec's order: a branch with a date or
 * a range, the list's filters and page, the day-end report's date, the
 * receipt's size. Pure functions over the query as received.
 */
import {
  BILL_FIELDS as F,
  BILL_STATUSES,
  FIELD_MESSAGES,
  Limits,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  type BillStatus,
  type PaymentMethod,
  type PaymentStatus,
  type ReceiptSize,
} from '@clinic/contracts';
import {
  badRequest,
  parsePage,
  queryText,
  requiredQueryId,
  validField,
  type Page,
  type QueryParams,
} from '@clinic/service-kit';

export interface DateRange {
  date?: string;
  from_date?: string;
  to_date?: string;
}

export interface BillFilter extends DateRange {
  store_id: number;
  payment_method?: PaymentMethod;
  payment_status?: PaymentStatus;
  status?: BillStatus;
  search?: string;
}

function parseStoreAndDates(query: QueryParams): { store_id: number } & DateRange {
  const range: { store_id: number } & DateRange = { store_id: requiredQueryId(query, 'store_id') };
  // An exact date makes the range irrelevant: from_date and to_date are then ignored, even when malformed.
  const fields = queryText(query, 'date') === undefined ? (['from_date', 'to_date'] as const) : (['date'] as const);
  for (const field of fields) {
    const value = queryText(query, field);
    if (value === undefined) continue;
    range[field] = validField(F.bill_date, value, field);
  }
  return range;
}

/** A filter applied only when it holds one of `allowed`; longer than the documented bound, it is refused, as the catalogue's filters are. */
function knownValue<T extends string>(query: QueryParams, field: string, allowed: readonly T[]): T | undefined {
  const value = queryText(query, field, badRequest, Limits.searchMaxLength);
  return (allowed as readonly (string | undefined)[]).includes(value) ? (value as T) : undefined;
}

export function parseListQuery(query: QueryParams): { filter: BillFilter; page: Page } {
  const filter: BillFilter = {
    ...parseStoreAndDates(query),
    payment_method: knownValue(query, 'payment_method', PAYMENT_METHODS),
    payment_status: knownValue(query, 'payment_status', PAYMENT_STATUSES),
    status: knownValue(query, 'status', BILL_STATUSES),
  };
  const search = queryText(query, 'search', badRequest, Limits.searchMaxLength);
  // See storage/search.ts for why a control character is refused.
  if (search !== undefined) validField(F.search, search, 'search');
  if (search !== undefined && search.trim() !== '') filter.search = search.trim();
  return { filter, page: parsePage(query) };
}

export function parseSummaryQuery(query: QueryParams): { store_id: number } & DateRange {
  return parseStoreAndDates(query);
}

/** GET /lab_bills/day_end: a branch and one date, both required. */
export function parseDayEndQuery(query: QueryParams): { store_id: number; date: string } {
  const storeId = requiredQueryId(query, 'store_id');
  const date = queryText(query, 'date');
  if (date === undefined) throw badRequest(FIELD_MESSAGES.required('date'));
  return { store_id: storeId, date: validField(F.bill_date, date, 'date') };
}

/** GET /lab_bills/{id}/receipt: the paper size, 80 mm by default. */
export function parseReceiptSize(query: QueryParams): ReceiptSize {
  const size = queryText(query, 'size');
  return size === undefined ? (F.receipt_size.default as ReceiptSize) : validField(F.receipt_size, size, 'size');
}
