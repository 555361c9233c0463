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
  type DayEndFormat,
  type ExportFormat,
  type ExportPart,
  EXPORT_MESSAGES,
  EXPORT_PARTS,
  type PaymentMethod,
  type PaymentStatus,
  type ReceiptSize,
} from '@clinic/contracts';
import {
  badRequest,
  parsePage,
  queryId,
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
  patient_id?: number;
  billed_by?: number;
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
    // Beyond the spec: ids, refused (400) when they are not positive integers, as store_id is.
    patient_id: queryId(query, 'patient_id'),
    billed_by: queryId(query, 'billed_by'),
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

/** GET /lab_bills/day_end: a branch and one date, both required; JSON unless `format=pdf`. */
export function parseDayEndQuery(query: QueryParams): { store_id: number; date: string; format: DayEndFormat } {
  const branchId = requiredQueryId(query, 'store_id');
  const date = queryText(query, 'date');
  if (date === undefined) throw badRequest(FIELD_MESSAGES.required('date'), 'date');
  const format = queryText(query, 'format');
  return {
    store_id: branchId,
    date: validField(F.bill_date, date, 'date'),
    format: format === undefined ? 'json' : validField(F.day_end_format, format, 'format'),
  };
}

/** GET /lab_bills/{id}/receipt: the paper size, 80 mm by default. */
export function parseReceiptSize(query: QueryParams): ReceiptSize {
  const size = queryText(query, 'size');
  return size === undefined ? (F.receipt_size.default as ReceiptSize) : validField(F.receipt_size, size, 'size');
}

/** Where an export's page starts: a bill date, and the last bill id of that date already exported. */
export interface ExportCursor {
  date: string;
  after: number;
}

export interface ExportQuery {
  filter: BillFilter & { from_date: string; to_date: string };
  format: ExportFormat;
  part: ExportPart;
  cursor: ExportCursor | null;
  /** The first page's time: bills created later are left out of every page. */
  asOf: Date | null;
  /** `include_cancelled=true`: cancelled bills too (the list's `status` then picks either). */
  includeCancelled: boolean;
}

const CURSOR = /^(\d{4}-\d{2}-\d{2})\.(\d{1,15})$/;

/**
 * GET /lab_bills/export: the list's branch and filters, a date or a range
 * (from and to, or the list's from_date and to_date), the file's format, and
 * on NATS the part, the cursor and the time of the first page.
 */
export function parseExportQuery(query: QueryParams): ExportQuery {
  const { filter } = parseListQuery(query);
  const format = queryText(query, 'format');
  if (format === undefined) throw badRequest(FIELD_MESSAGES.required('format'), 'format');
  const range = { ...filter };
  if (!range.date) {
    for (const [alias, field] of [
      ['from', 'from_date'],
      ['to', 'to_date'],
    ] as const) {
      const value = queryText(query, alias);
      if (value !== undefined) range[field] = validField(F.bill_date, value, alias);
      if (range[field] === undefined) throw badRequest(FIELD_MESSAGES.required(alias), alias);
    }
  }
  const cursor = queryText(query, 'cursor');
  const match = cursor === undefined ? null : CURSOR.exec(cursor);
  if (cursor !== undefined && !match) throw badRequest(EXPORT_MESSAGES.badCursor, 'cursor');
  const asOf = queryText(query, 'as_of');
  if (asOf !== undefined && Number.isNaN(Date.parse(asOf))) throw badRequest(EXPORT_MESSAGES.badAsOf, 'as_of');
  const includeCancelled = queryText(query, 'include_cancelled');
  if (includeCancelled !== undefined && includeCancelled !== 'true' && includeCancelled !== 'false')
    throw badRequest(FIELD_MESSAGES.notOneOf('include_cancelled', ['true', 'false']), 'include_cancelled');
  const part = queryText(query, 'part') ?? 'bills';
  if (!(EXPORT_PARTS as readonly string[]).includes(part))
    throw badRequest(FIELD_MESSAGES.notOneOf('part', EXPORT_PARTS), 'part');
  return {
    filter: { ...range, from_date: range.date ?? range.from_date!, to_date: range.date ?? range.to_date! },
    format: validField(F.export_format, format, 'format'),
    part: part as ExportPart,
    cursor: match ? { date: match[1]!, after: Number(match[2]) } : null,
    asOf: asOf === undefined ? null : new Date(asOf),
    includeCancelled: includeCancelled === 'true',
  };
}
