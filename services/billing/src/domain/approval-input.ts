/**
 * The bodies and queries of the approval routes, and catalogue's
 * use of an approval over NATS, checked in order: the body, each required
 * field, each field's rule, then the whole body's shape. Pure functions.
 */
import {
  APPROVAL_MESSAGES,
  BILLING_MESSAGES,
  CASH_OFFICE_FIELDS as F,
  decideApprovalBodySchema,
  FIELD_MESSAGES,
  releaseApprovalBodySchema,
  requestApprovalBodySchema,
  useApprovalBodySchema,
  type ApprovalStatus,
  type ApprovalTarget,
} from '@clinic/contracts';
import {
  badRequest,
  isPlainObject,
  optionalText,
  queryText,
  requiredQueryId,
  requireField,
  requireObject,
  requireShape,
  validField,
  type PlainObject,
  type QueryParams,
} from '@clinic/service-kit';
import type { ApprovalCheck } from './approvals';
import { eachEntry } from './list-entries';

/** What a request lists as needing approval: each check's rule and what the control found. */
function checksOf(body: PlainObject): ApprovalCheck[] {
  requireField(body, 'checks');
  return eachEntry(validField(F.checks, body.checks, 'checks'), 'checks', (check, at) => {
    requireField(check, 'rule', badRequest, at('rule'));
    const rule = validField(F.rule, check.rule, at('rule'));
    if (!isPlainObject(check.details)) throw badRequest(FIELD_MESSAGES.notObject(at('details')), at('details'));
    return { rule, details: check.details };
  });
}

/** POST /approvals. */
export function parseApprovalRequest(raw: unknown): { store_id: number; checks: ApprovalCheck[]; reason: string } {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  requireField(body, 'store_id');
  const store_id = validField(F.store_id, body.store_id, 'store_id');
  const checks = checksOf(body);
  const reason = optionalText(body, 'reason', F.reason);
  if (reason === null) throw badRequest(FIELD_MESSAGES.required('reason'), 'reason');
  requireShape(requestApprovalBodySchema, body);
  return { store_id, checks, reason };
}

/** POST /approvals/{id}/approve (an optional note) and /decline (a note, required). */
export function parseDecision(raw: unknown, noteRequired: boolean): string | null {
  if ((raw === undefined || raw === null) && !noteRequired) return null;
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const note = optionalText(body, 'note', F.note);
  if (noteRequired && note === null) throw badRequest(APPROVAL_MESSAGES.noteRequired, 'note');
  requireShape(decideApprovalBodySchema(noteRequired), body);
  return note;
}

/** GET /approvals. */
export function parseApprovalsQuery(query: QueryParams): {
  store_id: number;
  date?: string;
  status?: ApprovalStatus;
} {
  const store_id = requiredQueryId(query, 'store_id');
  const date = queryText(query, 'date');
  const status = queryText(query, 'status');
  return {
    store_id,
    ...(date === undefined ? {} : { date: validField(F.date, date, 'date') }),
    ...(status === undefined ? {} : { status: validField(F.approval_status, status, 'status') }),
  };
}

export interface ApprovalUse {
  approval_id: number;
  target: ApprovalTarget;
  target_id: string;
}

function useOf(body: PlainObject): ApprovalUse {
  for (const field of ['approval_id', 'target', 'target_id']) requireField(body, field);
  return {
    approval_id: validField(F.approval_id, body.approval_id, 'approval_id'),
    target: validField(F.target, body.target, 'target'),
    target_id: String(body.target_id),
  };
}

/** billing.approval.use (catalogue, over NATS). */
export function parseUseApproval(raw: unknown): ApprovalUse & { store_id: number; checks: ApprovalCheck[] } {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const use = useOf(body);
  requireField(body, 'store_id');
  const store_id = validField(F.store_id, body.store_id, 'store_id');
  const checks = checksOf(body);
  requireShape(useApprovalBodySchema, body);
  return { ...use, store_id, checks };
}

/** billing.approval.release (catalogue, over NATS). */
export function parseReleaseApproval(raw: unknown): ApprovalUse {
  const body = requireObject(raw, BILLING_MESSAGES.body);
  const use = useOf(body);
  requireShape(releaseApprovalBodySchema, body);
  return use;
}
