/**
 * Lab-bill rules in the spec's order. Pure functions over the message as
 * received: they return normalised values or throw a ServiceError.
 */
import {
  BILL_STATUSES,
  createBillBodySchema,
  DISCOUNT_TYPES,
  Limits,
  PAYMENT_METHODS,
  PAYMENT_STATUSES,
  RECEIPT_SIZES,
  updateBillBodySchema,
  type ReceiptSize,
  type BillStatus,
  type Caller,
  type DiscountType,
  type PaymentMethod,
  type PaymentStatus,
} from '@clinic/contracts';
import {
  badRequest,
  given,
  has,
  isBlankString,
  isCalendarDate,
  isFiniteNumber,
  isInteger,
  isNonBlankString,
  isPlainObject,
  isPositiveId,
  nullableCents,
  parseIntegerText,
  percentOf,
  queryText,
  requiredQueryId,
  schemaProblem,
  toCents,
  trimmedOrNull,
  type Cents,
  type PlainObject,
  type QueryParams,
} from '@clinic/service-kit';

export const MESSAGES = {
  body: 'Request body must be a JSON object.',
  items: 'items must contain at least one item.',
  created: 'Lab bill created successfully.',
  updated: 'Lab bill updated successfully.',
  cancelled: 'Lab bill cancelled successfully.',
  notFound: 'Bill not found.',
  storeNotFound: 'Store not found or inactive.',
  patientNotFound: 'Patient not found.',
  numberConflict: 'Bill number conflict. Please retry.',
  noUpdatableFields: 'No updatable fields provided.',
  cancelledBill: 'Cancelled bills cannot be changed.',
  alreadyCancelled: 'Bill is already cancelled.',
  catalogueUnavailable: 'The charge catalogue is unavailable. Please retry.',
  idempotencyMismatch: 'This Idempotency-Key was already used for a different request.',
  searchControlCharacters: 'search must not contain control characters.',
  reasonRequired: 'reason is required: give the reason for the cancellation.',
  reasonNotText: 'reason must be a string.',
  receiptSize: `size must be one of ${RECEIPT_SIZES.join(', ')}.`,
} as const;

const oneOf = (values: readonly string[]) => values.join(', ');

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
  if (!given(body, field) || isBlankString(body[field])) throw badRequest(`${field} is required.`);
  if (!isNonBlankString(body[field])) throw badRequest(`${field} must be a string.`);
  return (body[field] as string).trim();
}

function requirePresent(body: PlainObject, field: string): void {
  if (!given(body, field) || isBlankString(body[field])) throw badRequest(`${field} is required.`);
}

function checkMoney(value: unknown, field: string, allowNegative = false): void {
  if (!isFiniteNumber(value) || (!allowNegative && value < 0)) {
    throw badRequest(`${field} must be a number${allowNegative ? '' : ' greater than or equal to 0'}.`);
  }
  if (Math.abs(value) > Limits.moneyMax) throw badRequest(`${field} must be at most ${Limits.moneyMax} in size.`);
}

function parseItem(raw: unknown, index: number): ItemInput {
  const at = (field: string) => `items[${index}].${field}`;
  if (!isPlainObject(raw)) throw badRequest(`items[${index}] must be an object.`);
  if (!given(raw, 'charge_id')) throw badRequest(`${at('charge_id')} is required.`);
  if (!isPositiveId(raw.charge_id)) throw badRequest(`${at('charge_id')} must be a positive integer.`);
  if (!given(raw, 'charge_name') || isBlankString(raw.charge_name)) throw badRequest(`${at('charge_name')} is required.`);
  if (typeof raw.charge_name !== 'string') throw badRequest(`${at('charge_name')} must be a string.`);
  if (!given(raw, 'unit_price')) throw badRequest(`${at('unit_price')} is required.`);
  checkMoney(raw.unit_price, at('unit_price'));
  if (!given(raw, 'qty')) throw badRequest(`${at('qty')} is required.`);
  if (!isInteger(raw.qty) || raw.qty < Limits.qtyMin || raw.qty > Limits.qtyMax) {
    throw badRequest(`${at('qty')} must be an integer from ${Limits.qtyMin} to ${Limits.qtyMax}.`);
  }
  return {
    charge_id: raw.charge_id,
    charge_name: raw.charge_name.trim(),
    unit_price_cents: toCents(raw.unit_price as number),
    qty: raw.qty,
  };
}

function optionalId(body: PlainObject, field: string): number | null {
  if (!given(body, field)) return null;
  if (!isPositiveId(body[field])) throw badRequest(`${field} must be a positive integer.`);
  return body[field] as number;
}

function optionalEnum<T extends string>(body: PlainObject, field: string, allowed: readonly T[], fallback: T): T {
  if (!given(body, field)) return fallback;
  if (!(allowed as readonly unknown[]).includes(body[field])) throw badRequest(`${field} must be one of ${oneOf(allowed)}.`);
  return body[field] as T;
}

/** POST /lab_bills, rules 1 to 6 (everything that needs no lookup). */
export function parseNewBill(raw: unknown, caller: Caller): BillInput {
  // Rule 1
  if (!isPlainObject(raw)) throw badRequest(MESSAGES.body);
  const body = raw;
  // Rule 2: required fields and items
  const patient_name = requireText(body, 'patient_name');
  const patient_contact = requireText(body, 'patient_contact');
  requirePresent(body, 'bill_date');
  requirePresent(body, 'payment_method');
  requirePresent(body, 'store_id');
  if (!Array.isArray(body.items) || body.items.length === 0) throw badRequest(MESSAGES.items);
  if (body.items.length > Limits.billItemsMax) throw badRequest(`items must have at most ${Limits.billItemsMax} elements.`);
  const items = body.items.map(parseItem);
  // Rule 3: enumerations
  if (!(PAYMENT_METHODS as readonly unknown[]).includes(body.payment_method)) {
    throw badRequest(`payment_method must be one of ${oneOf(PAYMENT_METHODS)}.`);
  }
  const payment_method = body.payment_method as PaymentMethod;
  const payment_status = optionalEnum(body, 'payment_status', PAYMENT_STATUSES, 'Paid');
  const discount_type = optionalEnum(body, 'discount_type', DISCOUNT_TYPES, 'flat');
  // Rule 4: numbers
  if (!isPositiveId(body.store_id)) throw badRequest('store_id must be a positive integer.');
  let patient_age: number | null = null;
  if (given(body, 'patient_age') && body.patient_age !== '' && body.patient_age !== 0) {
    if (!isInteger(body.patient_age) || body.patient_age < 0 || body.patient_age > Limits.patientAgeMax) {
      throw badRequest(`patient_age must be an integer from 0 to ${Limits.patientAgeMax}.`);
    }
    patient_age = body.patient_age;
  }
  const explicitBilledBy = optionalId(body, 'billed_by');
  const patient_id = optionalId(body, 'patient_id');
  let discount_value = 0;
  if (given(body, 'discount_value')) {
    checkMoney(body.discount_value, 'discount_value');
    discount_value = body.discount_value as number;
  }
  for (const ignored of ['discount_amount', 'subtotal', 'grand_total']) {
    if (given(body, ignored) && !isFiniteNumber(body[ignored])) throw badRequest(`${ignored} must be a number.`);
  }
  // Rule 5: cash amounts, only meaningful (and only checked) on Cash bills
  let received_cents: Cents | null = null;
  let balance_cents: Cents | null = null;
  if (payment_method === 'Cash') {
    for (const field of ['received_amount', 'balance_amount']) {
      if (given(body, field)) checkMoney(body[field], field, true);
    }
    received_cents = nullableCents(body.received_amount as number | null | undefined);
    balance_cents = nullableCents(body.balance_amount as number | null | undefined);
  }
  // Rule 6: date
  if (!isCalendarDate(body.bill_date)) throw badRequest('bill_date must be a date in YYYY-MM-DD format.');
  for (const field of ['patient_nic', 'notes']) {
    if (given(body, field) && typeof body[field] !== 'string') throw badRequest(`${field} must be a string.`);
  }
  // Sizes and unknown fields. Cash amounts of other bills are ignored, whatever they hold.
  const shaped = payment_method === 'Cash' ? body : { ...body, received_amount: null, balance_amount: null };
  const problem = schemaProblem(createBillBodySchema, shaped);
  if (problem) throw badRequest(problem);

  return {
    patient_name,
    patient_contact,
    bill_date: body.bill_date,
    payment_method,
    store_id: body.store_id,
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

export function formatBillNumber(billDate: string, seq: number): string {
  return `LB-${billDate.replaceAll('-', '')}-${String(seq).padStart(4, '0')}`;
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
  if (!isPlainObject(raw)) throw badRequest(MESSAGES.body);
  const body = raw;
  const changes: BillChanges = {};
  const enumField = <T extends string>(field: 'payment_status' | 'payment_method', allowed: readonly T[]) => {
    // Blank, like null, means "not supplied" (null is not a value either field can hold).
    if (!has(body, field) || body[field] === null || isBlankString(body[field])) return;
    if (!(allowed as readonly unknown[]).includes(body[field])) throw badRequest(`${field} must be one of ${oneOf(allowed)}.`);
    (changes as Record<string, unknown>)[field] = body[field];
  };
  enumField('payment_status', PAYMENT_STATUSES);
  enumField('payment_method', PAYMENT_METHODS);
  for (const [field, key] of [
    ['received_amount', 'received_cents'],
    ['balance_amount', 'balance_cents'],
  ] as const) {
    if (!has(body, field)) continue;
    if (body[field] !== null) checkMoney(body[field], field, true);
    changes[key] = nullableCents(body[field] as number | null);
  }
  if (has(body, 'notes')) {
    if (body.notes !== null && typeof body.notes !== 'string') throw badRequest('notes must be a string.');
    changes.notes = trimmedOrNull(body.notes);
  }
  if (Object.keys(changes).length === 0) throw badRequest(MESSAGES.noUpdatableFields);
  const problem = schemaProblem(updateBillBodySchema, body);
  if (problem) throw badRequest(problem);
  return changes;
}

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

export interface Page {
  page: number;
  per_page: number;
}

function parseStoreAndDates(query: QueryParams): { store_id: number } & DateRange {
  const range: { store_id: number } & DateRange = { store_id: requiredQueryId(query, 'store_id') };
  // An exact date makes the range irrelevant: from_date and to_date are then ignored, even when malformed.
  const fields = queryText(query, 'date') === undefined ? (['from_date', 'to_date'] as const) : (['date'] as const);
  for (const field of fields) {
    const value = queryText(query, field);
    if (value === undefined) continue;
    if (!isCalendarDate(value)) throw badRequest(`${field} must be a date in YYYY-MM-DD format.`);
    range[field] = value;
  }
  return range;
}

/** A filter applied only when it holds one of `allowed`; longer than the documented bound, it is refused, as the catalogue's filters are. */
function knownValue<T extends string>(query: QueryParams, field: string, allowed: readonly T[]): T | undefined {
  const value = queryText(query, field, badRequest, Limits.searchMaxLength);
  return (allowed as readonly (string | undefined)[]).includes(value) ? (value as T) : undefined;
}

/** C0 control characters but tab, line feed and carriage return, and DEL. */
const SEARCH_CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export function parseListQuery(query: QueryParams): { filter: BillFilter; page: Page } {
  const filter: BillFilter = {
    ...parseStoreAndDates(query),
    payment_method: knownValue(query, 'payment_method', PAYMENT_METHODS),
    payment_status: knownValue(query, 'payment_status', PAYMENT_STATUSES),
    status: knownValue(query, 'status', BILL_STATUSES),
  };
  const search = queryText(query, 'search', badRequest, Limits.searchMaxLength);
  // A control character cannot be typed into a search box; U+001F would also reach across fields (see storage/search.ts).
  if (search !== undefined && SEARCH_CONTROL_CHARACTERS.test(search)) throw badRequest(MESSAGES.searchControlCharacters);
  if (search !== undefined && search.trim() !== '') filter.search = search.trim();
  const integer = (name: string, fallback: number) => {
    const text = queryText(query, name);
    if (text === undefined) return fallback;
    const value = parseIntegerText(text);
    if (value === undefined) throw badRequest(`${name} must be an integer.`);
    return value;
  };
  const page = Math.max(1, integer('page', 1));
  const perPage = Math.min(Limits.perPageMax, Math.max(1, integer('per_page', Limits.perPageDefault)));
  return { filter, page: { page, per_page: perPage } };
}

export function parseSummaryQuery(query: QueryParams): { store_id: number } & DateRange {
  return parseStoreAndDates(query);
}

export function pageCount(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

/**
 * DELETE /lab_bills/{id}'s optional body: the reason, trimmed (blank is none),
 * checked before the bill is looked up. `required`: CANCEL_REASON_REQUIRED.
 */
export function parseCancelReason(raw: unknown, required: boolean): string | null {
  let reason: string | null = null;
  if (raw !== undefined) {
    if (!isPlainObject(raw)) throw badRequest(MESSAGES.body);
    if (given(raw, 'reason')) {
      if (typeof raw.reason !== 'string') throw badRequest(MESSAGES.reasonNotText);
      if ([...raw.reason].length > Limits.cancelReasonMaxLength) throw badRequest(`reason must be at most ${Limits.cancelReasonMaxLength} characters.`);
      reason = trimmedOrNull(raw.reason);
    }
  }
  if (required && reason === null) throw badRequest(MESSAGES.reasonRequired);
  return reason;
}

/** GET /lab_bills/day_end: a branch and one date, both required. */
export function parseDayEndQuery(query: QueryParams): { store_id: number; date: string } {
  const storeId = requiredQueryId(query, 'store_id');
  const date = queryText(query, 'date');
  if (date === undefined) throw badRequest('date is required.');
  if (!isCalendarDate(date)) throw badRequest('date must be a date in YYYY-MM-DD format.');
  return { store_id: storeId, date };
}

/** GET /lab_bills/{id}/receipt: the paper size, 80 mm by default. */
export function parseReceiptSize(query: QueryParams): ReceiptSize {
  const size = queryText(query, 'size');
  if (size === undefined) return '80mm';
  if (!(RECEIPT_SIZES as readonly string[]).includes(size)) throw badRequest(MESSAGES.receiptSize);
  return size as ReceiptSize;
}
