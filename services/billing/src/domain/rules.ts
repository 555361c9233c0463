/**
 * Lab-bill rules in the spec's order. Pure functions over the message as
 * received: they return normalised values or throw a ServiceError. What each
 * field may hold, and the messages, are libs/contracts' (fields/billing.ts);
 * the reads' parameters are in filters.ts.
 */
import {
  BILL_FIELDS as F,
  BILLING_MESSAGES,
  createBillBodySchema,
  FIELD_MESSAGES,
  updateBillBodySchema,
  type Caller,
  type DiscountType,
  type FieldRule,
  type PaymentMethod,
  type PaymentStatus,
} from '@clinic/contracts';
import {
  badRequest,
  given,
  has,
  isBlankString,
  isFiniteNumber,
  isNonBlankString,
  isPositiveId,
  nullableCents,
  optionalText,
  percentOf,
  requireField,
  requireObject,
  requireShape,
  toCents,
  trimmedOrNull,
  validAmount,
  validField,
} from '@clinic/service-kit';
import type { Cents, PlainObject } from '@clinic/service-kit';

export interface ItemInput {
  charge_id: number;
  charge_name: string;
  unit_price_cents: Cents;
  qty: number;
}

export interface BillInput {
  patient_name: string;
  patient_contact: string;
  bill_date: string;
  payment_method: PaymentMethod;
  store_id: number;
  items: ItemInput[];
  patient_id: number | null;
  patient_nic: string | null;
  patient_age: number | null;
  billed_by: number | null;
  payment_status: PaymentStatus;
  discount_type: DiscountType;
  discount_value: number;
  received_cents: Cents | null;
  balance_cents: Cents | null;
  notes: string | null;
}

function requireText(body: PlainObject, field: string): string {
  requireField(body, field);
  if (!isNonBlankString(body[field])) throw badRequest(FIELD_MESSAGES.notText(field), field);
  return (body[field] as string).trim();
}

/** A field that may be absent (or null): its rule's default then, else null. */
function optional<T>(body: PlainObject, field: string, rule: FieldRule<T>): T | null {
  if (!given(body, field)) return rule.default ?? null;
  return validField(rule, body[field], field);
}

function parseItem(value: unknown, index: number): ItemInput {
  const at = (field: string) => `items[${index}].${field}`;
  const raw = requireObject(value, FIELD_MESSAGES.notObject(`items[${index}]`), `items[${index}]`);
  if (!given(raw, 'charge_id')) throw badRequest(FIELD_MESSAGES.required(at('charge_id')), at('charge_id'));
  const chargeId = validField(F.charge_id, raw.charge_id, at('charge_id'));
  requireField(raw, 'charge_name', badRequest, at('charge_name'));
  if (typeof raw.charge_name !== 'string')
    throw badRequest(FIELD_MESSAGES.notText(at('charge_name')), at('charge_name'));
  if (!given(raw, 'unit_price')) throw badRequest(FIELD_MESSAGES.required(at('unit_price')), at('unit_price'));
  const unitPriceCents = validAmount(F.unit_price, raw.unit_price, at('unit_price'));
  if (!given(raw, 'qty')) throw badRequest(FIELD_MESSAGES.required(at('qty')), at('qty'));
  const qty = validField(F.qty, raw.qty, at('qty'));
  return { charge_id: chargeId, charge_name: raw.charge_name.trim(), unit_price_cents: unitPriceCents, qty };
}

/** POST /lab_bills, rules 1 to 6 (everything that needs no lookup). */
export function parseNewBill(raw: unknown, caller: Caller): BillInput {
  // Rule 1
  const body = requireObject(raw, BILLING_MESSAGES.body);
  // Rule 2: required fields and items
  const patient_name = requireText(body, 'patient_name');
  const patient_contact = requireText(body, 'patient_contact');
  requireField(body, 'bill_date');
  requireField(body, 'payment_method');
  requireField(body, 'store_id');
  const items = validField(F.items, body.items, 'items').map(parseItem);
  // Rule 3: enumerations
  const payment_method = validField(F.payment_method, body.payment_method, 'payment_method');
  const payment_status = optional(body, 'payment_status', F.payment_status) as PaymentStatus;
  const discount_type = optional(body, 'discount_type', F.discount_type) as DiscountType;
  // Rule 4: numbers
  const store_id = validField(F.store_id, body.store_id, 'store_id');
  const patient_age =
    given(body, 'patient_age') && body.patient_age !== '' && body.patient_age !== 0
      ? validField(F.patient_age, body.patient_age, 'patient_age')
      : null;
  const explicitBilledBy = optional(body, 'billed_by', F.billed_by);
  const patient_id = optional(body, 'patient_id', F.patient_id);
  const discount_value = optional(body, 'discount_value', F.discount_value) ?? 0;
  for (const ignored of ['discount_amount', 'subtotal', 'grand_total']) {
    if (given(body, ignored) && !isFiniteNumber(body[ignored]))
      throw badRequest(FIELD_MESSAGES.notNumber(ignored), ignored);
  }
  // Rule 5: cash amounts, only meaningful (and only checked) on Cash bills
  let received_cents: Cents | null = null;
  let balance_cents: Cents | null = null;
  if (payment_method === 'Cash') {
    for (const field of ['received_amount', 'balance_amount']) {
      if (given(body, field)) validField(F.cash_amount, body[field], field);
    }
    received_cents = nullableCents(body.received_amount as number | null | undefined);
    balance_cents = nullableCents(body.balance_amount as number | null | undefined);
  }
  // Rule 6: date
  const bill_date = validField(F.bill_date, body.bill_date, 'bill_date');
  for (const field of ['patient_nic', 'notes']) {
    if (given(body, field) && typeof body[field] !== 'string') throw badRequest(FIELD_MESSAGES.notText(field), field);
  }
  // Sizes and unknown fields. Cash amounts of other bills are ignored, whatever they hold.
  const shaped = payment_method === 'Cash' ? body : { ...body, received_amount: null, balance_amount: null };
  requireShape(createBillBodySchema, shaped);

  return {
    patient_name,
    patient_contact,
    bill_date,
    payment_method,
    store_id,
    items,
    patient_id,
    patient_nic: trimmedOrNull(body.patient_nic),
    patient_age,
    billed_by: explicitBilledBy ?? (isPositiveId(caller.sub) ? caller.sub : null),
    payment_status,
    discount_type,
    discount_value,
    received_cents,
    balance_cents,
    notes: trimmedOrNull(body.notes),
  };
}

export interface Totals {
  line_totals: Cents[];
  subtotal: Cents;
  discount: Cents;
  grand_total: Cents;
}

/**
 * Rule 10, in exact decimal arithmetic: line = round(unit_price*qty, 2),
 * subtotal = sum of lines, discount = round(min(subtotal, subtotal*v/100), 2)
 * for pct or round(min(subtotal, v), 2) for flat, total = max(0, subtotal - discount).
 */
export function computeTotals(items: ItemInput[], discountType: DiscountType, discountValue: number): Totals {
  const line_totals = items.map((item) => item.unit_price_cents * item.qty);
  const subtotal = line_totals.reduce((sum, line) => sum + line, 0);
  const raw = discountType === 'pct' ? percentOf(subtotal, discountValue) : toCents(discountValue);
  const discount = Math.min(subtotal, raw);
  return { line_totals, subtotal, discount, grand_total: Math.max(0, subtotal - discount) };
}

export interface BillChanges {
  payment_status?: PaymentStatus;
  payment_method?: PaymentMethod;
  received_cents?: Cents | null;
  balance_cents?: Cents | null;
  notes?: string | null;
}

/** PUT /lab_bills/{id}, rules 1 to 4. */
export function parseBillUpdate(raw: unknown): BillChanges {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const changes: BillChanges = {};
  // Blank, like null, means "not supplied" (null is not a value either field can hold).
  const supplied = (field: string) => has(body, field) && body[field] !== null && !isBlankString(body[field]);
  if (supplied('payment_status'))
    changes.payment_status = validField(F.payment_status, body.payment_status, 'payment_status');
  if (supplied('payment_method'))
    changes.payment_method = validField(F.payment_method, body.payment_method, 'payment_method');
  for (const [field, key] of [
    ['received_amount', 'received_cents'],
    ['balance_amount', 'balance_cents'],
  ] as const) {
    if (!has(body, field)) continue;
    if (body[field] !== null) validField(F.cash_amount, body[field], field);
    changes[key] = nullableCents(body[field] as number | null);
  }
  if (has(body, 'notes')) {
    if (body.notes !== null && typeof body.notes !== 'string')
      throw badRequest(FIELD_MESSAGES.notText('notes'), 'notes');
    changes.notes = trimmedOrNull(body.notes);
  }
  if (Object.keys(changes).length === 0) throw badRequest(BILLING_MESSAGES.noUpdatableFields);
  requireShape(updateBillBodySchema, body);
  return changes;
}

/**
 * DELETE /lab_bills/{id}'s optional body: the reason, trimmed (blank is none),
 * checked before the bill is looked up. `required`: CANCEL_REASON_REQUIRED.
 */
export function parseCancelReason(raw: unknown, required: boolean): string | null {
  let reason: string | null = null;
  if (raw !== undefined) {
    const body = requireObject(raw, BILLING_MESSAGES.body);
    reason = optionalText(body, 'reason', F.cancel_reason);
  }
  if (required && reason === null) throw badRequest(BILLING_MESSAGES.reasonRequired, 'reason');
  return reason;
}
