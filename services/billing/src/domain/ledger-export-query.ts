/**
 * GET /lab_bills/ledger/export: a branch, a day or a range of days, the
 * file's format, and on NATS the cursor and the time of the first page.
 * Pure: checks the query in the order the bills' export does.
 */
import { BILL_FIELDS as F, EXPORT_MESSAGES, FIELD_MESSAGES, type ExportFormat } from '@clinic/contracts';
import { badRequest, queryText, requiredQueryId, validField, type QueryParams } from '@clinic/service-kit';

/** Where a page starts: a day, and the last entry id of that day already exported ('' for none). */
export interface LedgerExportCursor {
  day: string;
  after: string;
}

export interface LedgerExportQuery {
  store_id: number;
  from: string;
  to: string;
  format: ExportFormat;
  cursor: LedgerExportCursor | null;
  asOf: Date | null;
}

const CURSOR = /^(\d{4}-\d{2}-\d{2})\.([\w-]{0,100})$/;

export function parseLedgerExportQuery(query: QueryParams): LedgerExportQuery {
  const store_id = requiredQueryId(query, 'store_id');
  const date = queryText(query, 'date');
  const range: { from?: string; to?: string } = {};
  if (date !== undefined) range.from = range.to = validField(F.bill_date, date, 'date');
  else
    for (const field of ['from', 'to'] as const) {
      const value = queryText(query, field);
      if (value === undefined) throw badRequest(FIELD_MESSAGES.required(field), field);
      range[field] = validField(F.bill_date, value, field);
    }
  const format = queryText(query, 'format');
  if (format === undefined) throw badRequest(FIELD_MESSAGES.required('format'), 'format');
  const cursor = queryText(query, 'cursor');
  const match = cursor === undefined ? null : CURSOR.exec(cursor);
  if (cursor !== undefined && !match) throw badRequest(EXPORT_MESSAGES.badCursor, 'cursor');
  const asOf = queryText(query, 'as_of');
  if (asOf !== undefined && Number.isNaN(Date.parse(asOf))) throw badRequest(EXPORT_MESSAGES.badAsOf, 'as_of');
  return {
    store_id,
    from: range.from!,
    to: range.to!,
    format: validField(F.export_format, format, 'format'),
    cursor: match ? { day: match[1]!, after: match[2]! } : null,
    asOf: asOf === undefined ? null : new Date(asOf),
  };
}
