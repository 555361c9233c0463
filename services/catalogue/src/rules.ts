/**
 * Hospital-charge rules, in the order the spec gives them. Pure functions:
 * they take the message as received and return normalised values or throw a
 * ServiceError with the spec's status.
 */
import {
  CHARGE_STATUSES,
  CHARGE_TYPES,
  createChargeBodySchema,
  Limits,
  updateChargeBodySchema,
  type ChargeStatus,
  type ChargeType,
} from '@clinic/contracts';
import {
  badRequest,
  given,
  isFiniteNumber,
  isPlainObject,
  isPositiveId,
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
  notFound: 'Charge not found.',
  duplicate: 'A charge with this name already exists in this store.',
  noChanges: 'No changes were made.',
  created: 'Charge created successfully.',
  updated: 'Charge updated successfully.',
  deleted: 'Charge deleted successfully.',
} as const;

export interface ChargeFields {
  charge_name: string;
  charge_type: ChargeType;
  amount_cents: Cents;
  status: ChargeStatus;
  notes: string | null;
}

export interface NewCharge extends ChargeFields {
  store_id: number;
}

/** Two names are the same charge when they differ only in case or spacing. */
export function nameKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

function requireBody(body: unknown): PlainObject {
  if (!isPlainObject(body)) throw badRequest(MESSAGES.body);
  return body;
}

function checkPresence(body: PlainObject, fields: string[]): void {
  for (const field of fields) {
    const value = body[field];
    if (!given(body, field) || (typeof value === 'string' && value.trim() === '')) throw badRequest(`${field} is required.`);
  }
  if (typeof body.charge_name !== 'string') throw badRequest('charge_name must be a string.');
}

function checkCommonFields(body: PlainObject): ChargeFields {
  if (!isFiniteNumber(body.amount) || body.amount < 0) throw badRequest('amount must be a number greater than or equal to 0.');
  if (body.amount > Limits.moneyMax) throw badRequest(`amount must be at most ${Limits.moneyMax}.`);
  if (!(CHARGE_TYPES as readonly unknown[]).includes(body.charge_type)) throw badRequest('charge_type must be General or Lab.');
  const status = given(body, 'status') ? body.status : 'Active';
  if (!(CHARGE_STATUSES as readonly unknown[]).includes(status)) throw badRequest('status must be Active or Inactive.');
  if (given(body, 'notes') && typeof body.notes !== 'string') throw badRequest('notes must be a string.');
  return {
    charge_name: (body.charge_name as string).trim(),
    charge_type: body.charge_type as ChargeType,
    amount_cents: toCents(body.amount),
    status: status as ChargeStatus,
    notes: trimmedOrNull(body.notes),
  };
}

function checkShape(schema: Record<string, unknown>, body: PlainObject): void {
  const problem = schemaProblem(schema, body);
  if (problem) throw badRequest(problem);
}

export function parseNewCharge(raw: unknown): NewCharge {
  const body = requireBody(raw);
  checkPresence(body, ['charge_name', 'charge_type', 'amount', 'store_id']);
  if (!isPositiveId(body.store_id)) throw badRequest('store_id must be a positive integer.');
  const fields = checkCommonFields(body);
  checkShape(createChargeBodySchema, body);
  return { ...fields, store_id: body.store_id };
}

export function parseChargeUpdate(raw: unknown): ChargeFields {
  const body = requireBody(raw);
  checkPresence(body, ['charge_name', 'charge_type', 'amount']);
  const fields = checkCommonFields(body);
  // store_id, id, created_by and the timestamps of a charge read back are ignored: none of them can change.
  checkShape(updateChargeBodySchema, body);
  return fields;
}

export function sameFields(a: ChargeFields, b: ChargeFields): boolean {
  return (
    a.charge_name === b.charge_name &&
    a.charge_type === b.charge_type &&
    a.amount_cents === b.amount_cents &&
    a.status === b.status &&
    a.notes === b.notes
  );
}

export interface ChargeListFilter {
  store_id: number;
  status?: string;
  charge_type?: string;
  search?: string;
}

export function parseListQuery(query: QueryParams): ChargeListFilter {
  const filter: ChargeListFilter = { store_id: requiredQueryId(query, 'store_id') };
  const [status, chargeType, search] = ['status', 'charge_type', 'search'].map((name) =>
    queryText(query, name, badRequest, Limits.searchMaxLength),
  );
  if (status !== undefined) filter.status = status;
  if (chargeType !== undefined) filter.charge_type = chargeType;
  if (search !== undefined && search.trim() !== '') filter.search = search.trim();
  return filter;
}

export interface ChargeCheck {
  store_id: number;
  charge_ids: number[];
}

export function parseChargeCheck(raw: unknown): ChargeCheck {
  const body = requireBody(raw);
  if (!isPositiveId(body.store_id)) throw badRequest('store_id must be a positive integer.');
  const ids = body.charge_ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > Limits.billItemsMax || !ids.every(isPositiveId)) {
    throw badRequest(`charge_ids must be a list of 1 to ${Limits.billItemsMax} positive integers.`);
  }
  return { store_id: body.store_id, charge_ids: ids };
}
