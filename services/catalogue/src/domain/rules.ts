/**
 * Hospital-charge rules, in the order the spec gives them. Pure functions:
 * they take the message as received and return normalised values or throw a
 * ServiceError with the spec's status. What each field may hold, and the
 * messages, are libs/contracts' (fields/catalogue.ts).
 */
import {
  CASH_OFFICE_FIELDS,
  CATALOGUE_MESSAGES,
  CHARGE_FIELDS as F,
  createChargeBodySchema,
  FIELD_MESSAGES,
  Limits,
  updateChargeBodySchema,
  type ChargeCheckRequest,
  type ChargeStatus,
  type ChargeType,
} from '@clinic/contracts';
import {
  badRequest,
  given,
  isPlainObject,
  optionalPage,
  queryText,
  requiredQueryId,
  requireField,
  requireObject,
  requireShape,
  trimmedOrNull,
  validAmount,
  validField,
  type Cents,
  type Page,
  type PlainObject,
  type QueryParams,
} from '@clinic/service-kit';

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

function checkPresence(body: PlainObject, fields: string[]): void {
  for (const field of fields) requireField(body, field);
  if (typeof body.charge_name !== 'string') throw badRequest(FIELD_MESSAGES.notText('charge_name'), 'charge_name');
}

function checkCommonFields(body: PlainObject): ChargeFields {
  const amount_cents = validAmount(F.amount, body.amount, 'amount');
  const chargeType = validField(F.charge_type, body.charge_type, 'charge_type');
  const status = validField(F.status, given(body, 'status') ? body.status : F.status.default, 'status');
  if (given(body, 'notes') && typeof body.notes !== 'string')
    throw badRequest(FIELD_MESSAGES.notText('notes'), 'notes');
  return {
    charge_name: (body.charge_name as string).trim(),
    charge_type: chargeType,
    amount_cents,
    status,
    notes: trimmedOrNull(body.notes),
  };
}

export function parseNewCharge(raw: unknown): NewCharge {
  const body = requireObject(raw, CATALOGUE_MESSAGES.body);
  checkPresence(body, ['charge_name', 'charge_type', 'amount', 'store_id']);
  const branchId = validField(F.store_id, body.store_id, 'store_id');
  const fields = checkCommonFields(body);
  requireShape(createChargeBodySchema, body);
  return { ...fields, store_id: branchId };
}

export function parseChargeUpdate(raw: unknown): ChargeFields {
  const body = requireObject(raw, CATALOGUE_MESSAGES.body);
  checkPresence(body, ['charge_name', 'charge_type', 'amount']);
  const fields = checkCommonFields(body);
  // store_id, id, created_by and the timestamps of a charge read back are ignored: none of them can change.
  requireShape(updateChargeBodySchema, body);
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
  /** Beyond the spec: a page of the list; absent, the whole list. */
  page?: Page;
}

export function parseListQuery(query: QueryParams): ChargeListFilter {
  const filter: ChargeListFilter = { store_id: requiredQueryId(query, 'store_id') };
  const [status, chargeType, search] = ['status', 'charge_type', 'search'].map((name) =>
    queryText(query, name, badRequest, Limits.searchMaxLength),
  );
  if (status !== undefined) filter.status = status;
  if (chargeType !== undefined) filter.charge_type = chargeType;
  if (search !== undefined && search.trim() !== '') filter.search = search.trim();
  const page = optionalPage(query);
  if (page) filter.page = page;
  return filter;
}

export function parseChargeCheck(raw: unknown): ChargeCheckRequest {
  const body = requireObject(raw, CATALOGUE_MESSAGES.body);
  return {
    store_id: validField(F.store_id, body.store_id, 'store_id'),
    charge_ids: validField(F.charge_ids, body.charge_ids, 'charge_ids'),
  };
}

/** The approval a change names (`approval_id`, APPROVE_CATALOGUE_CHANGES), or null. */
export function approvalIdOf(raw: unknown): number | null {
  if (!isPlainObject(raw) || !given(raw, 'approval_id')) return null;
  return validField(CASH_OFFICE_FIELDS.approval_id, raw.approval_id, 'approval_id');
}
