import { Limits } from '../limits';
import {
  actorSchema,
  dateSchema,
  historyEntrySchema,
  IGNORED_FIELDS_NOTE,
  idSchema,
  moneySchema,
  nonBlank,
  optionalText,
  signedMoneySchema,
  successSchema,
  timestampSchema,
  type JsonSchema,
} from './common';

export const PAYMENT_METHODS = ['Cash', 'Card', 'Online'] as const;
export const PAYMENT_STATUSES = ['Paid', 'Pending'] as const;
export const DISCOUNT_TYPES = ['flat', 'pct'] as const;
export const BILL_STATUSES = ['active', 'cancelled'] as const;

export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type DiscountType = (typeof DISCOUNT_TYPES)[number];
export type BillStatus = (typeof BILL_STATUSES)[number];

const nullableId: JsonSchema = { ...idSchema, nullable: true };
const nullableMoney: JsonSchema = { ...moneySchema, nullable: true };

export const billItemInputSchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['charge_id', 'charge_name', 'unit_price', 'qty'],
  properties: {
    charge_id: idSchema,
    charge_name: nonBlank(Limits.nameMaxLength),
    unit_price: moneySchema,
    qty: { type: 'integer', minimum: Limits.qtyMin, maximum: Limits.qtyMax },
  },
};

export const createBillBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: IGNORED_FIELDS_NOTE,
  example: {
    patient_name: 'Nimal Fernando',
    patient_contact: '0771234567',
    bill_date: '2026-11-21',
    payment_method: 'Cash',
    store_id: 1,
    items: [{ charge_id: 1, charge_name: 'Full Blood Count', unit_price: 850, qty: 1 }],
    received_amount: 1000,
    balance_amount: 150,
  },
  required: ['patient_name', 'patient_contact', 'bill_date', 'payment_method', 'store_id', 'items'],
  properties: {
    patient_name: nonBlank(Limits.nameMaxLength),
    patient_contact: nonBlank(Limits.contactMaxLength),
    bill_date: dateSchema,
    payment_method: { type: 'string', enum: [...PAYMENT_METHODS] },
    store_id: idSchema,
    items: { type: 'array', minItems: 1, maxItems: Limits.billItemsMax, items: billItemInputSchema },
    patient_id: nullableId,
    patient_nic: optionalText(Limits.nicMaxLength),
    patient_age: {
      description: 'absent, empty or 0 is stored as null',
      anyOf: [
        { type: 'integer', minimum: 0, maximum: Limits.patientAgeMax, nullable: true },
        { type: 'string', maxLength: 0 },
      ],
    },
    billed_by: { ...nullableId, description: 'default: the caller identity when it is an integer' },
    payment_status: { type: 'string', enum: [...PAYMENT_STATUSES], default: 'Paid' },
    discount_type: { type: 'string', enum: [...DISCOUNT_TYPES], default: 'flat' },
    discount_value: { ...moneySchema, nullable: true, default: 0 },
    received_amount: { ...signedMoneySchema, nullable: true, description: 'stored only on Cash bills' },
    balance_amount: { ...signedMoneySchema, nullable: true, description: 'stored only on Cash bills' },
    notes: optionalText(Limits.notesMaxLength),
    discount_amount: { ...nullableMoney, description: 'accepted but ignored: computed by the service' },
    subtotal: { ...nullableMoney, description: 'accepted but ignored: computed by the service' },
    grand_total: { ...nullableMoney, description: 'accepted but ignored: computed by the service' },
  },
};

export const updateBillBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: `At least one of these fields. A blank or null payment_status or payment_method counts as not supplied. ${IGNORED_FIELDS_NOTE}`,
  anyOf: [
    { type: 'object', required: ['payment_status'], properties: { payment_status: { type: 'string', enum: [...PAYMENT_STATUSES] } } },
    { type: 'object', required: ['payment_method'], properties: { payment_method: { type: 'string', enum: [...PAYMENT_METHODS] } } },
    { type: 'object', required: ['received_amount'] },
    { type: 'object', required: ['balance_amount'] },
    { type: 'object', required: ['notes'] },
  ],
  properties: {
    payment_status: { type: 'string', enum: [...PAYMENT_STATUSES, '', null], nullable: true },
    payment_method: { type: 'string', enum: [...PAYMENT_METHODS, '', null], nullable: true },
    received_amount: { ...signedMoneySchema, nullable: true },
    balance_amount: { ...signedMoneySchema, nullable: true },
    notes: optionalText(Limits.notesMaxLength),
  },
};

const dateFilters: Record<string, JsonSchema> = {
  store_id: idSchema,
  date: { ...dateSchema, description: 'exact bill_date; when present from_date and to_date are ignored' },
  from_date: dateSchema,
  to_date: dateSchema,
};

export const listBillsQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id'],
  properties: {
    ...dateFilters,
    payment_method: { type: 'string', maxLength: Limits.searchMaxLength, description: 'applied only if Cash, Card or Online' },
    payment_status: { type: 'string', maxLength: Limits.searchMaxLength, description: 'applied only if Paid or Pending' },
    status: { type: 'string', maxLength: Limits.searchMaxLength, description: 'applied only if active or cancelled' },
    search: {
      type: 'string',
      maxLength: Limits.searchMaxLength,
      // C0 control characters other than tab, line feed and carriage return, and DEL, are refused with 400.
      pattern: '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$',
      description: 'case-insensitive substring of patient_name, patient_contact, bill_number or patient_nic; control characters but tab, line feed and carriage return are refused (400)',
    },
    // Any integer the service can read exactly; beyond that it answers 400.
    page: { type: 'integer', default: 1, minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description: 'values below 1 become 1' },
    per_page: {
      type: 'integer',
      default: Limits.perPageDefault,
      minimum: Number.MIN_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'clamped to 1..100',
    },
  },
};

export const summaryQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id'],
  properties: dateFilters,
};

export const billSchema: JsonSchema = {
  type: 'object',
  required: [
    'id', 'bill_number', 'store_id', 'patient_id', 'patient_name', 'patient_contact', 'patient_nic', 'patient_age',
    'bill_date', 'billed_by', 'billed_by_name', 'payment_method', 'payment_status', 'discount_type', 'discount_value',
    'discount_amount', 'subtotal', 'grand_total', 'received_amount', 'balance_amount', 'notes', 'status', 'is_deleted',
    'created_at', 'updated_at',
  ],
  properties: {
    id: idSchema,
    bill_number: { type: 'string', pattern: '^LB-\\d{8}-\\d{4,}$', example: 'LB-20261121-0001' },
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
  },
};

export const billItemSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'bill_id', 'charge_id', 'charge_name', 'unit_price', 'qty', 'line_total'],
  properties: {
    id: idSchema,
    bill_id: idSchema,
    charge_id: idSchema,
    charge_name: { type: 'string' },
    unit_price: { type: 'number' },
    qty: { type: 'integer' },
    line_total: { type: 'number' },
  },
};

export const billWithItemsSchema: JsonSchema = {
  ...billSchema,
  required: [...(billSchema.required as string[]), 'items'],
  properties: { ...(billSchema.properties as Record<string, JsonSchema>), items: { type: 'array', items: billItemSchema } },
};

export const summarySchema: JsonSchema = {
  type: 'object',
  required: [
    'total_bills', 'paid_count', 'pending_count', 'cash_count', 'card_count', 'online_count', 'total_revenue',
    'total_discounts', 'total_subtotal', 'cash_revenue', 'card_revenue', 'online_revenue',
  ],
  properties: {
    total_bills: { type: 'integer' },
    paid_count: { type: 'integer' },
    pending_count: { type: 'integer' },
    cash_count: { type: 'integer' },
    card_count: { type: 'integer' },
    online_count: { type: 'integer' },
    total_revenue: { type: 'number' },
    total_discounts: { type: 'number' },
    total_subtotal: { type: 'number' },
    cash_revenue: { type: 'number' },
    card_revenue: { type: 'number' },
    online_revenue: { type: 'number' },
  },
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
    count: { type: 'integer' },
    total: { type: 'integer' },
    page: { type: 'integer' },
    per_page: { type: 'integer' },
    pages: { type: 'integer' },
  }),
  summary: successSchema({ summary: summarySchema }),
  one: successSchema({ bill: billWithItemsSchema }),
};

/** What catalogue answers to billing's charge check. */
export interface ChargeCheckRequest {
  store_id: number;
  charge_ids: number[];
}

export interface ChargeCheckReply {
  success: true;
  /** The ids that are not Active, deleted, missing or of another store. */
  invalid_ids: number[];
}

// Beyond the spec: the audit trail, the day-end report and the printable receipt.

export const cancelBillBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: `Optional. The reason is stored trimmed with the cancellation's history entry; the service makes it mandatory when CANCEL_REASON_REQUIRED=true. ${IGNORED_FIELDS_NOTE}`,
  properties: {
    reason: { type: 'string', nullable: true, maxLength: Limits.cancelReasonMaxLength, example: 'Patient billed twice' },
  },
};

export const BILL_HISTORY_ACTIONS = ['created', 'updated', 'cancelled'] as const;
export type BillHistoryAction = (typeof BILL_HISTORY_ACTIONS)[number];

export const dayEndQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id', 'date'],
  properties: { store_id: idSchema, date: { ...dateSchema, description: 'the bill_date reported on' } },
};

export const RECEIPT_SIZES = ['80mm', 'a5'] as const;
export type ReceiptSize = (typeof RECEIPT_SIZES)[number];

export const receiptQuerySchema: JsonSchema = {
  type: 'object',
  properties: { size: { type: 'string', enum: [...RECEIPT_SIZES], default: '80mm', description: '80 mm roll (default) or A5 sheet' } },
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
    cancelled_by: { ...actorSchema, nullable: true, description: 'null for a bill cancelled before the audit trail existed' },
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
      description: 'the fields of GET /lab_bills/summary for the branch and date, with the same values, and the revenue per payment status',
      required: [...(summarySchema.required as string[]), 'paid_revenue', 'pending_revenue'],
      properties: { ...(summarySchema.properties as Record<string, JsonSchema>), paid_revenue: { type: 'number' }, pending_revenue: { type: 'number' } },
    },
    cancelled: {
      type: 'object',
      description: 'the bills of this date that were cancelled, whenever that happened',
      required: ['count', 'grand_total', 'bills'],
      properties: { count: { type: 'integer' }, grand_total: { type: 'number' }, bills: { type: 'array', items: cancelledBillSchema } },
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

export const billingExtraResponses = {
  history: successSchema({
    bill_id: idSchema,
    bill_number: { type: 'string' },
    history: { type: 'array', items: historyEntrySchema(BILL_HISTORY_ACTIONS) },
  }),
  dayEnd: successSchema({ report: dayEndSchema }),
  /** Documented as `application/pdf` bytes (see HttpRoute.produces). */
  receipt: { type: 'string', description: 'the printable receipt (PDF)' } as JsonSchema,
};
