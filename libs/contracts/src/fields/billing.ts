/** What a lab bill's fields may hold, and what billing answers: stated once for the service and its schemas. */
import { Limits } from '../limits';
import { moneySchema } from '../schemas/common';
import { calendarDate, FIELD_MESSAGES, fieldRule, integerFrom, money, oneOf, positiveId } from './common';

export const PAYMENT_METHODS = ['Cash', 'Card', 'Online'] as const;
export const PAYMENT_STATUSES = ['Paid', 'Pending'] as const;
export const DISCOUNT_TYPES = ['flat', 'pct'] as const;
export const BILL_STATUSES = ['active', 'cancelled'] as const;
export const RECEIPT_SIZES = ['80mm', 'a5'] as const;
/** The day-end report as JSON (the default) or a printable A4 PDF; a list of bills as a spreadsheet. */
export const DAY_END_FORMATS = ['json', 'pdf'] as const;
export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;

export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];
export type DiscountType = (typeof DISCOUNT_TYPES)[number];
export type BillStatus = (typeof BILL_STATUSES)[number];
export type ReceiptSize = (typeof RECEIPT_SIZES)[number];
export type DayEndFormat = (typeof DAY_END_FORMATS)[number];
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What a bill's history entries record. */
/** `printed`: a receipt or credit note printed, the first time or again (its `copy`). */
export const BILL_HISTORY_ACTIONS = ['created', 'updated', 'cancelled', 'payment', 'refund', 'printed'] as const;
export type BillHistoryAction = (typeof BILL_HISTORY_ACTIONS)[number];

/** `LB-<bill date without dashes>-<its sequence, 4 digits or more>`: LB-20261121-0001. */
export const BILL_NUMBER_PATTERN = '^LB-\\d{8}-\\d{4,}$';

export function formatBillNumber(billDate: string, seq: number): string {
  return `LB-${billDate.replaceAll('-', '')}-${String(seq).padStart(4, '0')}`;
}

/** Rules of the fields that the service checks one by one, in the spec's order. */
export const BILL_FIELDS = {
  /** The bill's items: at least one, at most Limits.billItemsMax (each checked by the rules below). */
  items: fieldRule<unknown[]>({ type: 'array', minItems: 1, maxItems: Limits.billItemsMax }, (field, value) =>
    Array.isArray(value) && value.length > 0
      ? FIELD_MESSAGES.tooMany(field, Limits.billItemsMax)
      : `${field} must contain at least one item.`,
  ),
  store_id: positiveId,
  bill_date: calendarDate,
  payment_method: oneOf(PAYMENT_METHODS),
  payment_status: oneOf(PAYMENT_STATUSES, 'Paid'),
  discount_type: oneOf(DISCOUNT_TYPES, 'flat'),
  discount_value: money(),
  /** received_amount and balance_amount, stored on Cash bills only; never negative. */
  cash_amount: fieldRule<number>(moneySchema, (field, value) =>
    typeof value !== 'number' || !Number.isFinite(value)
      ? FIELD_MESSAGES.notNumber(field)
      : value < 0
        ? `${field} must be greater than or equal to 0.`
        : `${field} must be at most ${Limits.moneyMax} in size.`,
  ),
  patient_id: positiveId,
  billed_by: positiveId,
  /** Absent, empty or 0 is stored as null. */
  patient_age: integerFrom(0, Limits.patientAgeMax),
  charge_id: positiveId,
  unit_price: money(),
  qty: integerFrom(Limits.qtyMin, Limits.qtyMax),
  cancel_reason: fieldRule<string>(
    { type: 'string', nullable: true, maxLength: Limits.cancelReasonMaxLength },
    (field, value) =>
      typeof value === 'string'
        ? FIELD_MESSAGES.tooLong(field, Limits.cancelReasonMaxLength)
        : FIELD_MESSAGES.notText(field),
  ),
  receipt_size: oneOf(RECEIPT_SIZES, '80mm'),
  day_end_format: oneOf(DAY_END_FORMATS, 'json'),
  export_format: oneOf(EXPORT_FORMATS),
  /**
   * No C0 control character but tab, line feed and carriage return, and no
   * DEL: nobody types one, and U+001F would reach across the fields a search
   * looks in. Its length is checked first, as every filter's is.
   */
  search: fieldRule<string>(
    { type: 'string', pattern: '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$' },
    (field) => `${field} must not contain control characters.`,
  ),
} as const;

export const BILLING_MESSAGES = {
  body: FIELD_MESSAGES.bodyNotObject,
  created: 'Lab bill created successfully.',
  updated: 'Lab bill updated successfully.',
  cancelled: 'Lab bill cancelled successfully.',
  notFound: 'Bill not found.',
  storeNotFound: 'Store not found or inactive.',
  patientNotFound: 'Patient not found.',
  invalidCharges: (storeId: number, ids: number[]) =>
    `Invalid charge_id(s) for store ${storeId}: ${ids.join(', ')}. Each charge must be Active and belong to the bill's store.`,
  numberConflict: 'Bill number conflict. Please retry.',
  noUpdatableFields: 'No updatable fields provided.',
  cancelledBill: 'Cancelled bills cannot be changed.',
  alreadyCancelled: 'Bill is already cancelled.',
  catalogueUnavailable: 'The charge catalogue is unavailable. Please retry.',
  idempotencyMismatch: 'This Idempotency-Key was already used for a different request.',
  reasonRequired: 'reason is required: give the reason for the cancellation.',
} as const;
