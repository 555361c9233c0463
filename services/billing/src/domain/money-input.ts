/**
 * The bodies and queries of payments, refunds and a day's closing,
 * checked in order: the body, each required field, each field's rule, then
 * the whole body's shape. Pure functions over the message as received.
 */
import {
  BILLING_MESSAGES,
  DAY_MESSAGES,
  dayCloseBodySchema,
  FIELD_MESSAGES,
  LEDGER_FIELDS as F,
  LEDGER_MESSAGES,
  paymentBodySchema,
  refundBodySchema,
  reopenDayBodySchema,
} from '@clinic/contracts';
import {
  badRequest,
  given,
  optionalText,
  requireField,
  requireObject,
  requireShape,
  validAmount,
  validField,
  type Cents,
  type PlainObject,
} from '@clinic/service-kit';
import { userKey } from './day-end-report';
import type { PaymentInput, RefundInput } from './money-rules';

/** A required text that must not be blank, stored trimmed. */
export function requiredText(body: PlainObject, field: string, rule: typeof F.reason, message: string): string {
  const text = optionalText(body, field, rule);
  if (text === null) throw badRequest(message, field);
  return text;
}

/**
 * What a payment and a refund both take: an amount of at least a cent once
 * rounded half-up to the cent (as a bill's prices are: 0.005 is 0.01, 0.004
 * would be an entry of 0), and a method.
 */
function amountAndMethod(body: PlainObject): { amount_cents: Cents; method: PaymentInput['method'] } {
  requireField(body, 'amount');
  requireField(body, 'method');
  const amount_cents = validAmount(F.amount, body.amount, 'amount');
  if (amount_cents === 0) throw badRequest(LEDGER_MESSAGES.belowOneCent, 'amount');
  const method = validField(F.method, body.method, 'method');
  return { amount_cents, method };
}

/** POST /lab_bills/{id}/payments. A Cash payment's received_amount covers it; another method's is ignored. */
export function parsePayment(raw: unknown): PaymentInput {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const { amount_cents, method } = amountAndMethod(body);
  let received_cents: Cents | null = null;
  if (method === 'Cash' && given(body, 'received_amount')) {
    received_cents = validAmount(F.received_amount, body.received_amount, 'received_amount');
    if (received_cents < amount_cents) throw badRequest(LEDGER_MESSAGES.receivedBelowAmount, 'received_amount');
  }
  const reference = optionalText(body, 'reference', F.reference);
  requireShape(paymentBodySchema, method === 'Cash' ? body : { ...body, received_amount: null });
  return { amount_cents, method, received_cents, reference };
}

/** POST /lab_bills/{id}/refunds. */
export function parseRefund(raw: unknown): RefundInput {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const { amount_cents, method } = amountAndMethod(body);
  const reason = requiredText(body, 'reason', F.reason, LEDGER_MESSAGES.reasonRequired);
  const item_id = given(body, 'item_id') ? validField(F.item_id, body.item_id, 'item_id') : null;
  requireShape(refundBodySchema, body);
  return { amount_cents, method, reason, item_id };
}

export interface DayCloseInput {
  store_id: number;
  date: string;
  /** Counted cash per user, in cents. */
  counted: Map<number | string, Cents>;
}

/** POST /lab_bills/day_close. */
export function parseDayClose(raw: unknown): DayCloseInput {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  requireField(body, 'store_id');
  requireField(body, 'date');
  const store_id = validField(F.store_id, body.store_id, 'store_id');
  const date = validField(F.date, body.date, 'date');
  const counted = new Map<number | string, Cents>();
  if (given(body, 'counted_cash')) {
    const list = validField(F.counted_cash, body.counted_cash, 'counted_cash');
    list.forEach((raw, i) => {
      const at = (field: string) => `counted_cash[${i}].${field}`;
      const entry = requireObject(raw, FIELD_MESSAGES.notObject(`counted_cash[${i}]`), `counted_cash[${i}]`);
      requireField(entry, 'user_id', badRequest, at('user_id'));
      requireField(entry, 'amount', badRequest, at('amount'));
      // "7" and 7 are one user (userKey): listed twice, whichever way, is a duplicate.
      const userId = userKey(validField(F.user_id, entry.user_id, at('user_id')));
      const amount = validAmount(F.counted_amount, entry.amount, at('amount'));
      if (counted.has(userId)) throw badRequest(DAY_MESSAGES.duplicateUser(userId), 'counted_cash');
      counted.set(userId, amount);
    });
  }
  requireShape(dayCloseBodySchema, body);
  return { store_id, date, counted };
}

/** DELETE /lab_bills/day_close: the reason for reopening, required. */
export function parseReopen(raw: unknown): string {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const reason = requiredText(body, 'reason', F.reason, DAY_MESSAGES.reasonRequired);
  requireShape(reopenDayBodySchema, body);
  return reason;
}
