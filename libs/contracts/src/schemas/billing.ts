/** The lab-bill routes' requests, built from the bill's field rules (fields/billing.ts). */
import { BILL_FIELDS, BILL_STATUSES, PAYMENT_METHODS, PAYMENT_STATUSES } from '../fields/billing';
import { Limits } from '../limits';
import {
  orEmptyAsNull,
  dateSchema,
  IGNORED_FIELDS_NOTE,
  idSchema,
  moneySchema,
  nonBlank,
  optionalText,
  orList,
  pageQueryProperties,
  type JsonSchema,
} from './common';
import { approvalIdProperty } from './approvals';
import { shiftIdProperty } from './shifts';

const F = BILL_FIELDS;
export const nullableId: JsonSchema = { ...idSchema, nullable: true };
const nullableMoney: JsonSchema = { ...moneySchema, nullable: true };
/** How a list filter that only applies to known values is documented. */
const appliedOnlyIf = (values: readonly string[]) => `applied only if ${orList(values)}`;

export const billItemInputSchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['charge_id', 'charge_name', 'unit_price', 'qty'],
  properties: {
    charge_id: F.charge_id.schema,
    charge_name: nonBlank(Limits.nameMaxLength),
    unit_price: F.unit_price.schema,
    qty: F.qty.schema,
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
    bill_date: F.bill_date.schema,
    payment_method: F.payment_method.schema,
    store_id: F.store_id.schema,
    items: { ...F.items.schema, items: billItemInputSchema },
    patient_id: { ...F.patient_id.schema, nullable: true },
    patient_nic: optionalText(Limits.nicMaxLength),
    patient_age: orEmptyAsNull(F.patient_age.schema, 'absent, empty or 0 is stored as null'),
    billed_by: {
      ...F.billed_by.schema,
      nullable: true,
      description: 'default: the caller identity when it is an integer',
    },
    payment_status: F.payment_status.schema,
    discount_type: F.discount_type.schema,
    discount_value: { ...F.discount_value.schema, nullable: true, default: 0 },
    received_amount: { ...F.cash_amount.schema, nullable: true, description: 'stored only on Cash bills' },
    balance_amount: { ...F.cash_amount.schema, nullable: true, description: 'stored only on Cash bills' },
    notes: optionalText(Limits.notesMaxLength),
    discount_amount: { ...nullableMoney, description: 'accepted but ignored: computed by the service' },
    subtotal: { ...nullableMoney, description: 'accepted but ignored: computed by the service' },
    grand_total: { ...nullableMoney, description: 'accepted but ignored: computed by the service' },
    shift_id: shiftIdProperty,
    approval_id: approvalIdProperty,
  },
};

/** A payment status as an update takes it: without the default of a new bill (absent leaves it unchanged). */
const { default: _paid, ...paymentStatus } = F.payment_status.schema;
/** An enumerated field an update may also give as blank or null: "not supplied". */
const orNotSupplied = (schema: JsonSchema): JsonSchema => ({
  ...schema,
  enum: [...(schema.enum as string[]), '', null],
  nullable: true,
});

export const updateBillBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: `At least one of these fields. A blank or null payment_status or payment_method counts as not supplied. ${IGNORED_FIELDS_NOTE}`,
  anyOf: [
    { type: 'object', required: ['payment_status'], properties: { payment_status: paymentStatus } },
    { type: 'object', required: ['payment_method'], properties: { payment_method: F.payment_method.schema } },
    { type: 'object', required: ['received_amount'] },
    { type: 'object', required: ['balance_amount'] },
    { type: 'object', required: ['notes'] },
  ],
  properties: {
    payment_status: orNotSupplied(paymentStatus),
    payment_method: orNotSupplied(F.payment_method.schema),
    received_amount: { ...F.cash_amount.schema, nullable: true },
    balance_amount: { ...F.cash_amount.schema, nullable: true },
    notes: optionalText(Limits.notesMaxLength),
    shift_id: shiftIdProperty,
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
    payment_method: { type: 'string', maxLength: Limits.searchMaxLength, description: appliedOnlyIf(PAYMENT_METHODS) },
    payment_status: { type: 'string', maxLength: Limits.searchMaxLength, description: appliedOnlyIf(PAYMENT_STATUSES) },
    status: { type: 'string', maxLength: Limits.searchMaxLength, description: appliedOnlyIf(BILL_STATUSES) },
    patient_id: { ...idSchema, description: "only this patient's bills" },
    billed_by: { ...idSchema, description: 'only the bills this user billed' },
    search: {
      ...F.search.schema,
      maxLength: Limits.searchMaxLength,
      description:
        'case-insensitive substring of patient_name, patient_contact, bill_number or patient_nic; control characters but tab, line feed and carriage return are refused (400)',
    },
    ...pageQueryProperties,
  },
};

export const summaryQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id'],
  properties: dateFilters,
};

// Beyond the spec: the cancellation's reason, the day-end report and the printable receipt.

export const cancelBillBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: `Optional. The reason is stored trimmed with the cancellation's history entry; the service makes it mandatory when CANCEL_REASON_REQUIRED=true. ${IGNORED_FIELDS_NOTE}`,
  properties: {
    reason: { ...F.cancel_reason.schema, example: 'Patient billed twice' },
    shift_id: {
      ...shiftIdProperty,
      description: `${shiftIdProperty.description}; what the bill holds is refunded from it`,
    },
  },
};

export const dayEndQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id', 'date'],
  properties: {
    store_id: idSchema,
    date: { ...dateSchema, description: 'the bill_date reported on' },
    format: {
      ...F.day_end_format.schema,
      description: 'json (the default): the report; pdf: the report printed on A4 (application/pdf)',
    },
  },
};

export const receiptQuerySchema: JsonSchema = {
  type: 'object',
  properties: { size: { ...F.receipt_size.schema, description: '80 mm roll (default) or A5 sheet' } },
};
