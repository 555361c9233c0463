/**
 * The bodies of channeling's money routes, checked in order: the
 * body, each required field, each field's rule, then the whole body's shape.
 * Pure functions over the message as received.
 */
import {
  BILL_FIELDS,
  balancesBodySchema,
  BILLING_MESSAGES,
  CHANNELING_MESSAGES,
  LEDGER_FIELDS as F,
  reasonWithShiftBodySchema,
  settlementBodySchema,
  type DayEndFormat,
  type PaymentMethod,
} from '@clinic/contracts';
import {
  given,
  queryText,
  requireField,
  requireObject,
  requireShape,
  validField,
  type QueryParams,
} from '@clinic/service-kit';
import { requiredText } from './money-input';

/** DELETE /appointments/{id} and DELETE /sessions/{id}/settlement: the reason, required (and the shift that pays). */
export function parseReason(raw: unknown): string {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const reason = requiredText(body, 'reason', F.reason, CHANNELING_MESSAGES.reasonRequired);
  requireShape(reasonWithShiftBodySchema, body);
  return reason;
}

/** POST /sessions/{id}/settlement: the method the doctor is paid in (Cash when the body is absent or silent). */
export function parseSettlement(raw: unknown): PaymentMethod {
  if (raw === undefined || raw === null) return 'Cash';
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const method = given(body, 'method') ? validField(F.method, body.method, 'method') : 'Cash';
  requireShape(settlementBodySchema, body);
  return method;
}

/** billing.appointment.balances: the appointments' ids, each once. */
export function parseBalances(raw: unknown): number[] {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  requireField(body, 'appointment_ids');
  requireShape(balancesBodySchema, body);
  return [...new Set(body.appointment_ids as number[])];
}

/** GET /sessions/{id}/settlement: JSON unless `format=pdf`. */
export function parseFormat(query: QueryParams): DayEndFormat {
  const format = queryText(query, 'format');
  return format === undefined ? 'json' : validField(BILL_FIELDS.day_end_format, format, 'format');
}
