/**
 * GET /lab_bills/ledger/export: a branch's payments, refunds,
 * reversals and doctors' payouts of a range of days, by the day the money
 * moved, as CSV or Excel: the drawer's ledger, for the accounts. Billing
 * answers `billing.ledger.export` a page at a time, as the bills' export.
 */
import { BILL_FIELDS as F } from './fields/billing';
import { exportColumns, EXPORT_BILL_COLUMNS, EXPORT_ITEM_COLUMNS, EXPORT_MEDIA_TYPES } from './exports';
import type { ExportColumn } from './exports';
import type { HttpRoute } from './http-route';
import { dateSchema, idSchema, successSchema, type JsonSchema } from './schemas/common';
import { standardFailures } from './schemas/failures';
import { BillingSubjects } from './subjects';

/** One row per entry, oldest day first; bill or appointment, who, how, and the reference or reason it was given. */
export const EXPORT_LEDGER_COLUMNS = exportColumns({
  id: 'text',
  day: 'date',
  at: 'datetime',
  kind: 'text',
  method: 'text',
  amount: 'money',
  bill_id: 'integer',
  bill_number: 'text',
  appointment_id: 'integer',
  session_id: 'integer',
  collector: 'text',
  collector_name: 'text',
  role: 'text',
  reference: 'text',
  reason: 'text',
});

/** Entries in one page of billing.ledger.export. */
export const EXPORT_PAGE_ENTRIES = 250;

export const ledgerExportQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id', 'format'],
  properties: {
    store_id: idSchema,
    format: { ...F.export_format.schema, description: 'csv (RFC 4180, UTF-8 with a BOM) or xlsx' },
    date: { ...dateSchema, description: 'one day the money moved; else from and to, both required' },
    from: { ...dateSchema, description: 'the first day' },
    to: { ...dateSchema, description: 'the last day' },
    part: { type: 'string', enum: ['entries'], description: 'NATS only: the rows of the page' },
    cursor: { type: 'string', maxLength: 200, description: 'NATS only: `next` of the previous page' },
    as_of: { type: 'string', maxLength: 40, description: 'NATS only: `as_of` of the first page' },
  },
};

const entryRowSchema: JsonSchema = {
  type: 'object',
  required: EXPORT_LEDGER_COLUMNS.map((c) => c.key),
  properties: Object.fromEntries(
    EXPORT_LEDGER_COLUMNS.map((c) => [
      c.key,
      c.type === 'text' || c.type === 'date' || c.type === 'datetime'
        ? { type: 'string', nullable: true }
        : { type: 'number', nullable: true },
    ]),
  ),
};

export const ledgerExportPageSchema = successSchema(
  {
    as_of: { type: 'string', description: 'entries made after it are not exported; send it back with the cursor' },
    next: { type: 'string', nullable: true, description: 'the cursor of the next page; null on the last' },
    entries: { type: 'array', maxItems: EXPORT_PAGE_ENTRIES, items: entryRowSchema },
  },
  ['as_of', 'next', 'entries'],
);

export const LEDGER_EXPORT_ROUTE: Omit<HttpRoute, 'access'> = {
  operationId: 'exportLedger',
  method: 'GET',
  url: '/lab_bills/ledger/export',
  branchScope: 'named',
  subject: BillingSubjects.ledgerExport,
  tag: 'Lab bills',
  summary:
    "A branch's payments, refunds, reversals and doctors' payouts of a day or a range (by the day the money moved), as CSV or Excel; streamed as it is read",
  querystring: ledgerExportQuerySchema,
  natsOnlyQuery: ['part', 'cursor', 'as_of'],
  exports: EXPORT_MEDIA_TYPES,
  responses: { 200: ledgerExportPageSchema, ...standardFailures(400) },
};

/** A sheet of an exported file: the rows of one part of the pages, in these columns (CSV writes the first). */
export interface ExportSheet {
  name: string;
  part: string;
  columns: ExportColumn[];
}

/** The files the gateway writes, by the subject whose pages it reads: their name's start and their sheets. */
export const EXPORT_FILES: Readonly<Record<string, { prefix: string; sheets: readonly ExportSheet[] }>> = {
  [BillingSubjects.export]: {
    prefix: 'bills',
    sheets: [
      { name: 'Bills', part: 'bills', columns: EXPORT_BILL_COLUMNS },
      { name: 'Items', part: 'items', columns: EXPORT_ITEM_COLUMNS },
    ],
  },
  [BillingSubjects.ledgerExport]: {
    prefix: 'ledger',
    sheets: [{ name: 'Ledger', part: 'entries', columns: EXPORT_LEDGER_COLUMNS }],
  },
};
