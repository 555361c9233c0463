/** What the lab-bill routes answer: the bill as the API shows it, the summary, the day-end report, the history. */
import {
  BILL_HISTORY_ACTIONS,
  BILL_NUMBER_PATTERN,
  BILL_STATUSES,
  DISCOUNT_TYPES,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
} from '../fields/billing';
import { nullableId } from './billing';
import { dayEndPaperProperties, printedEntryProperties } from './paper';
import {
  balanceProperties,
  dayEndChannelingSchema,
  drawerEntrySchema,
  ledgerEntrySchema,
  owedSchema,
} from './billing-money';
import {
  actorSchema,
  dateSchema,
  historyEntrySchema,
  pageReplyProperties,
  idSchema,
  objectSchema,
  successSchema,
  timestampSchema,
  type JsonSchema,
} from './common';
import { cashOfficeDayEndProperties } from './cash-office-day-end';

export const billSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'bill_number',
    'store_id',
    'patient_id',
    'patient_name',
    'patient_contact',
    'patient_nic',
    'patient_age',
    'bill_date',
    'billed_by',
    'billed_by_name',
    'payment_method',
    'payment_status',
    'discount_type',
    'discount_value',
    'discount_amount',
    'subtotal',
    'grand_total',
    'received_amount',
    'balance_amount',
    'notes',
    'status',
    'is_deleted',
    'created_at',
    'updated_at',
    'paid_amount',
    'refunded_amount',
    'due_amount',
  ],
  properties: {
    id: idSchema,
    bill_number: { type: 'string', pattern: BILL_NUMBER_PATTERN, example: 'LB-20261121-0001' },
    store_id: idSchema,
    patient_id: nullableId,
    patient_name: { type: 'string' },
    patient_contact: { type: 'string' },
    patient_nic: { type: 'string', nullable: true },
    patient_age: { type: 'integer', nullable: true },
    bill_date: { ...dateSchema, nullable: true },
    billed_by: nullableId,
    billed_by_name: { type: 'string', nullable: true },
    payment_method: { type: 'string', enum: [...PAYMENT_METHODS] },
    payment_status: { type: 'string', enum: [...PAYMENT_STATUSES] },
    discount_type: { type: 'string', enum: [...DISCOUNT_TYPES] },
    discount_value: { type: 'number' },
    discount_amount: { type: 'number' },
    subtotal: { type: 'number' },
    grand_total: { type: 'number' },
    received_amount: { type: 'number', nullable: true },
    balance_amount: { type: 'number', nullable: true },
    notes: { type: 'string', nullable: true },
    status: { type: 'string', enum: [...BILL_STATUSES] },
    is_deleted: { type: 'boolean' },
    created_at: timestampSchema,
    updated_at: timestampSchema,
    paid_amount: balanceProperties.paid_amount!,
    refunded_amount: balanceProperties.refunded_amount!,
    due_amount: balanceProperties.due_amount!,
  },
};

export const billItemSchema: JsonSchema = objectSchema({
  id: idSchema,
  bill_id: idSchema,
  charge_id: idSchema,
  charge_name: { type: 'string' },
  unit_price: { type: 'number' },
  qty: { type: 'integer' },
  line_total: { type: 'number' },
});

export const billWithItemsSchema: JsonSchema = {
  ...billSchema,
  required: [...(billSchema.required as string[]), 'items'],
  properties: {
    ...(billSchema.properties as Record<string, JsonSchema>),
    items: { type: 'array', items: billItemSchema },
  },
};

/** The summary's counts (integers), then its amounts (numbers), in the order the reply lists them. */
const SUMMARY_COUNTS = ['total_bills', 'paid_count', 'pending_count', 'cash_count', 'card_count', 'online_count'];
const SUMMARY_AMOUNTS = [
  'total_revenue',
  'total_discounts',
  'total_subtotal',
  'cash_revenue',
  'card_revenue',
  'online_revenue',
];

export const summarySchema: JsonSchema = {
  type: 'object',
  required: [...SUMMARY_COUNTS, ...SUMMARY_AMOUNTS],
  properties: Object.fromEntries([
    ...SUMMARY_COUNTS.map((name) => [name, { type: 'integer' }]),
    ...SUMMARY_AMOUNTS.map((name) => [name, { type: 'number' }]),
  ]),
};

export const billingResponses = {
  created: successSchema({
    message: { type: 'string' },
    bill_id: idSchema,
    bill_number: { type: 'string' },
    grand_total: { type: 'number' },
  }),
  list: successSchema({
    bills: { type: 'array', items: billSchema },
    ...pageReplyProperties,
  }),
  summary: successSchema({ summary: summarySchema }),
  one: successSchema({ bill: billWithItemsSchema }),
};

const countAndTotal: JsonSchema = {
  type: 'object',
  required: ['count', 'grand_total'],
  properties: { count: { type: 'integer' }, grand_total: { type: 'number' } },
};
const perValue = (values: readonly string[]): JsonSchema => ({
  type: 'object',
  required: [...values],
  properties: Object.fromEntries(values.map((v) => [v, countAndTotal])),
});

export const dayEndCashierSchema: JsonSchema = {
  type: 'object',
  required: ['billed_by', 'billed_by_name', 'bill_count', 'grand_total', 'payment_methods', 'payment_statuses'],
  properties: {
    billed_by: nullableId,
    billed_by_name: { type: 'string', nullable: true },
    bill_count: { type: 'integer' },
    grand_total: { type: 'number' },
    payment_methods: perValue(PAYMENT_METHODS),
    payment_statuses: perValue(PAYMENT_STATUSES),
  },
};

export const cancelledBillSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'bill_number', 'grand_total', 'billed_by', 'cancelled_at', 'cancelled_by', 'reason'],
  properties: {
    id: idSchema,
    bill_number: { type: 'string' },
    grand_total: { type: 'number' },
    billed_by: nullableId,
    cancelled_at: timestampSchema,
    cancelled_by: {
      ...actorSchema,
      nullable: true,
      description: 'null for a bill cancelled before the audit trail existed',
    },
    reason: { type: 'string', nullable: true },
  },
};

export const dayEndSchema: JsonSchema = {
  type: 'object',
  required: ['store_id', 'date', 'cashiers', 'totals', 'cancelled'],
  properties: {
    store_id: idSchema,
    date: dateSchema,
    cashiers: { type: 'array', items: dayEndCashierSchema },
    totals: {
      ...summarySchema,
      description:
        'the fields of GET /lab_bills/summary for the branch and date, with the same values, and the revenue per payment status',
      required: [...(summarySchema.required as string[]), 'paid_revenue', 'pending_revenue'],
      properties: {
        ...(summarySchema.properties as Record<string, JsonSchema>),
        paid_revenue: { type: 'number' },
        pending_revenue: { type: 'number' },
      },
    },
    drawer: {
      type: 'array',
      items: drawerEntrySchema,
      description:
        'per user who took or gave back money in the branch that day (by when it moved); absent when nobody did',
    },
    owed: { ...owedSchema, description: `${owedSchema.description}; absent when none is` },
    channeling: dayEndChannelingSchema,
    ...dayEndPaperProperties,
    ...cashOfficeDayEndProperties,
    cancelled: {
      type: 'object',
      description: 'the bills of this date that were cancelled, whenever that happened',
      required: ['count', 'grand_total', 'bills'],
      properties: {
        count: { type: 'integer' },
        grand_total: { type: 'number' },
        bills: { type: 'array', items: cancelledBillSchema },
      },
    },
  },
};

/** A PDF travels over NATS base64-encoded inside the envelope; the gateway sends it as bytes. */
export interface BinaryReplyBody {
  success: true;
  content_type: string;
  filename: string;
  data_base64: string;
}

/** A bill's history entry: what moved money lists its ledger entries; a creation, the prices set apart from the catalogue's. */
const historyEntry = historyEntrySchema(BILL_HISTORY_ACTIONS);
const billHistoryEntrySchema: JsonSchema = {
  ...historyEntry,
  properties: {
    ...(historyEntry.properties as Record<string, JsonSchema>),
    ledger: { type: 'array', items: ledgerEntrySchema, description: 'the payments, refunds and reversals it made' },
    ...printedEntryProperties,
    price_overrides: {
      type: 'array',
      description: "creations only: items billed at another price than the catalogue's at the time",
      items: {
        type: 'object',
        required: ['charge_id', 'catalogue_price', 'unit_price'],
        properties: { charge_id: idSchema, catalogue_price: { type: 'number' }, unit_price: { type: 'number' } },
      },
    },
  },
};

export const billingExtraResponses = {
  history: successSchema({
    bill_id: idSchema,
    bill_number: { type: 'string' },
    history: { type: 'array', items: billHistoryEntrySchema },
    ...pageReplyProperties,
  }),
  dayEnd: successSchema({ report: dayEndSchema }),
  /** Documented as `application/pdf` bytes (see HttpRoute.produces). */
  receipt: { type: 'string', description: 'the printable receipt (PDF)' } as JsonSchema,
};
