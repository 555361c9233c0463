/**
 * GET /lab_bills/export: a branch's bills of a date range as CSV
 * or Excel. Billing answers `billing.bill.export` with one page of rows at a
 * time (bills, or their items) and a cursor to the next; the gateway asks
 * for the pages one after another and writes the file as they come, so that
 * neither holds the whole export (docs/architecture.md, Design notes). These are the
 * columns both read, with the type a spreadsheet gives each.
 */
import { BILL_FIELDS as F } from './fields/billing';
import { Limits } from './limits';
import type { HttpRoute } from './http-route';
import { BILL_STATUSES, PAYMENT_METHODS, PAYMENT_STATUSES } from './fields/billing';
import { billItemSchema, billSchema } from './schemas/billing-replies';
import { dateSchema, idSchema, successSchema, type JsonSchema } from './schemas/common';
import { standardFailures } from './schemas/failures';
import { BillingSubjects } from './subjects';

/** How a column's value is written: text is neutralised in CSV, the others are typed in Excel. */
export type ExportColumnType = 'text' | 'integer' | 'number' | 'money' | 'date' | 'datetime';

export interface ExportColumn {
  key: string;
  type: ExportColumnType;
}

export const exportColumns = (spec: Record<string, ExportColumnType>): ExportColumn[] =>
  Object.entries(spec).map(([key, type]) => ({ key, type }));

/** One row per bill: the list's fields, and `status` last (`cancelled` only in an export that asks for them). */
export const EXPORT_BILL_COLUMNS = exportColumns({
  id: 'integer',
  bill_number: 'text',
  bill_date: 'date',
  created_at: 'datetime',
  updated_at: 'datetime',
  store_id: 'integer',
  patient_id: 'integer',
  patient_name: 'text',
  patient_contact: 'text',
  patient_nic: 'text',
  patient_age: 'integer',
  billed_by: 'integer',
  billed_by_name: 'text',
  payment_method: 'text',
  payment_status: 'text',
  discount_type: 'text',
  discount_value: 'number',
  discount_amount: 'money',
  subtotal: 'money',
  grand_total: 'money',
  paid_amount: 'money',
  refunded_amount: 'money',
  due_amount: 'money',
  received_amount: 'money',
  balance_amount: 'money',
  notes: 'text',
  status: 'text',
});

/** The Excel file's second sheet: one row per item, with its bill's number and date. */
export const EXPORT_ITEM_COLUMNS = exportColumns({
  bill_id: 'integer',
  bill_number: 'text',
  bill_date: 'date',
  id: 'integer',
  charge_id: 'integer',
  charge_name: 'text',
  unit_price: 'money',
  qty: 'integer',
  line_total: 'money',
});

export const EXPORT_MEDIA_TYPES = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

/** Bills in one page of billing.bill.export (their items at most 100 times as many). */
export const EXPORT_PAGE_BILLS = 250;
/** Bill dates one page reads at most, so that a long range of empty days is answered in several pages, each in time. */
export const EXPORT_PAGE_DAYS = 370;
export const EXPORT_PARTS = ['bills', 'items'] as const;
export type ExportPart = (typeof EXPORT_PARTS)[number];

// In a module of their own: the table of error codes names them, and this module's route names failure schemas.
export { EXPORT_MESSAGES } from './export-messages';

const text = (description: string): JsonSchema => ({ type: 'string', maxLength: Limits.searchMaxLength, description });

export const exportQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id', 'format'],
  properties: {
    store_id: idSchema,
    format: { ...F.export_format.schema, description: 'csv (RFC 4180, UTF-8 with a BOM) or xlsx (two sheets)' },
    date: { ...dateSchema, description: 'one bill_date; else from and to, both required' },
    from: { ...dateSchema, description: 'the first bill_date (the list calls it from_date, also taken)' },
    to: { ...dateSchema, description: 'the last bill_date (the list calls it to_date, also taken)' },
    from_date: dateSchema,
    to_date: dateSchema,
    payment_method: text(`as the list: applied only when one of ${PAYMENT_METHODS.join(', ')}`),
    payment_status: text(`as the list: applied only when one of ${PAYMENT_STATUSES.join(', ')}`),
    status: text(`as the list: applied only when one of ${BILL_STATUSES.join(', ')}`),
    search: { ...F.search.schema, maxLength: Limits.searchMaxLength, description: 'as the list' },
    include_cancelled: {
      type: 'string',
      enum: ['true', 'false'],
      description: 'true: cancelled bills too, each with its `status` (`status=cancelled`: those alone)',
    },
    part: {
      type: 'string',
      enum: [...EXPORT_PARTS],
      description: 'NATS only: rows of bills (the default) or of their items',
    },
    cursor: { type: 'string', maxLength: 200, description: 'NATS only: `next` of the previous page' },
    as_of: { type: 'string', maxLength: 40, description: 'NATS only: `as_of` of the first page' },
  },
};

const itemRowSchema: JsonSchema = {
  ...billItemSchema,
  required: [...((billItemSchema.required as string[] | undefined) ?? []), 'bill_number', 'bill_date'],
  properties: {
    ...(billItemSchema.properties as Record<string, JsonSchema>),
    bill_number: { type: 'string' },
    bill_date: dateSchema,
  },
};

/** What billing answers on NATS: a page of rows, oldest bill date first, and where the next page starts. */
export const exportPageSchema = successSchema(
  {
    as_of: { type: 'string', description: 'bills created after it are not exported; send it back with the cursor' },
    next: { type: 'string', nullable: true, description: 'the cursor of the next page; null on the last' },
    bills: { type: 'array', maxItems: EXPORT_PAGE_BILLS, items: billSchema },
    items: { type: 'array', items: itemRowSchema },
  },
  ['as_of', 'next'],
);

export const EXPORT_ROUTE: Omit<HttpRoute, 'access'> = {
  operationId: 'exportLabBills',
  method: 'GET',
  url: '/lab_bills/export',
  branchScope: 'named',
  subject: BillingSubjects.export,
  tag: 'Lab bills',
  summary:
    "A branch's live bills of a date or a range, with the list's filters, as CSV (one row per bill) or Excel (a sheet of bills and one of their items, dates and amounts typed); streamed as it is read",
  querystring: exportQuerySchema,
  natsOnlyQuery: ['part', 'cursor', 'as_of'],
  exports: EXPORT_MEDIA_TYPES,
  responses: { 200: exportPageSchema, ...standardFailures(400) },
};
