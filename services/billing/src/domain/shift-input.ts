/**
 * The bodies and queries of the shift routes, checked in order:
 * the body, each required field, each field's rule, then the whole body's
 * shape. Pure functions over the message as received.
 */
import {
  acceptHandoverBodySchema,
  BILLING_MESSAGES,
  CASH_OFFICE_FIELDS as F,
  closeShiftBodySchema,
  FIELD_MESSAGES,
  handoverBodySchema,
  openShiftBodySchema,
  shiftMovementBodySchema,
  signOffBodySchema,
  type ShiftStatus,
} from '@clinic/contracts';
import {
  badRequest,
  given,
  isPlainObject,
  optionalText,
  queryText,
  requiredQueryId,
  requireField,
  requireObject,
  requireShape,
  validAmount,
  validField,
  type Cents,
  type PlainObject,
  type QueryParams,
} from '@clinic/service-kit';
import { eachEntry } from './list-entries';
import { checkDenominations, type Denomination } from './shift';

/** Notes and coins by face value, when given; they must add up to `amount`. */
function denominations(body: PlainObject, field: string, amount: Cents): Denomination[] | null {
  if (!given(body, field)) return null;
  const list = eachEntry(validField(F.denominations, body[field], field), field, (entry, at) => {
    requireField(entry, 'value', badRequest, at('value'));
    requireField(entry, 'count', badRequest, at('count'));
    return {
      value_cents: validAmount(F.denomination_value, entry.value, at('value')),
      count: validField(F.denomination_count, entry.count, at('count')),
    };
  });
  checkDenominations(field, amount, list);
  return list;
}

/** An amount of cash, required. */
function cash(body: PlainObject, field: string, rule = F.cash): Cents {
  requireField(body, field);
  return validAmount(rule, body[field], field);
}

/** An amount of cash counted (a float, a close), by denomination when given, with a note. */
function counted(body: PlainObject, field: string, listField: string) {
  const cents = cash(body, field);
  return { cents, denominations: denominations(body, listField, cents), note: optionalText(body, 'note', F.note) };
}

/** POST /shifts. */
export function parseOpenShift(raw: unknown) {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  requireField(body, 'store_id');
  const store_id = validField(F.store_id, body.store_id, 'store_id');
  const float = counted(body, 'float', 'float_denominations');
  requireShape(openShiftBodySchema, body);
  return { store_id, float_cents: float.cents, float_denominations: float.denominations, note: float.note };
}

/** POST /shifts/{id}/drops and /payouts (a payout needs its reason). */
export function parseMovement(raw: unknown, reasonRequired: boolean) {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const amount_cents = cash(body, 'amount', F.positive_cash);
  const reason = optionalText(body, 'reason', F.reason);
  if (reasonRequired && reason === null) throw badRequest(FIELD_MESSAGES.required('reason'), 'reason');
  requireShape(shiftMovementBodySchema(reasonRequired), body);
  return { amount_cents, reason };
}

/** POST /shifts/{id}/close. */
export function parseCount(raw: unknown) {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const count = counted(body, 'counted', 'denominations');
  requireShape(closeShiftBodySchema, body);
  return { counted_cents: count.cents, denominations: count.denominations, note: count.note };
}

/** POST /shifts/{id}/handover. */
export function parseHandover(raw: unknown) {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  requireField(body, 'to_user_id');
  const to_user_id = validField(F.to_user_id, body.to_user_id, 'to_user_id');
  const count = counted(body, 'counted', 'denominations');
  requireShape(handoverBodySchema, body);
  return { to_user_id, counted_cents: count.cents, denominations: count.denominations, note: count.note };
}

/** POST /shifts/{id}/accept: the amount counted at the handover, confirmed. */
export function parseAccept(raw: unknown): Cents {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const amount = cash(body, 'amount');
  requireShape(acceptHandoverBodySchema, body);
  return amount;
}

/** POST /shifts/{id}/sign_off: an optional note. */
export function parseSignOff(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const note = optionalText(body, 'note', F.note);
  requireShape(signOffBodySchema, body);
  return note;
}

/** GET /shifts. */
export function parseShiftsQuery(query: QueryParams): { store_id: number; date: string; status?: ShiftStatus } {
  const store_id = requiredQueryId(query, 'store_id');
  const date = queryText(query, 'date');
  if (date === undefined) throw badRequest(FIELD_MESSAGES.required('date'), 'date');
  const status = queryText(query, 'status');
  return {
    store_id,
    date: validField(F.date, date, 'date'),
    ...(status === undefined ? {} : { status: validField(F.shift_status, status, 'status') }),
  };
}

/** An optional id a money route's body may name (shift_id, approval_id): null when absent. */
export function optionalId(raw: unknown, field: 'shift_id' | 'approval_id'): number | null {
  if (!isPlainObject(raw) || !given(raw, field)) return null;
  return validField(F[field], raw[field], field);
}
