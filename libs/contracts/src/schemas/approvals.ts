/** The approval routes' requests and answers: what a clinic's controls refuse, and its approval. */
import { APPROVAL_STATUSES, APPROVAL_TARGETS, CASH_OFFICE_FIELDS as F } from '../fields/cash-office';
import { Limits } from '../limits';
import {
  actorSchema,
  dateSchema,
  idSchema,
  nonBlank,
  objectSchema,
  optionalText,
  strict,
  successSchema,
  timestampSchema,
  type JsonSchema,
} from './common';

/** A controlled request's approval, given by an admin (POST /approvals). */
export const approvalIdProperty: JsonSchema = {
  ...F.approval_id.schema,
  nullable: true,
  description: 'the approval an admin gave for what the controls refused (APPROVAL_REQUIRED); used once',
};

/** One thing a control refused, as the refusal names it and an approval covers it. */
export const approvalCheckSchema: JsonSchema = objectSchema({
  rule: F.rule.schema,
  details: {
    type: 'object',
    description:
      "what the control found (a charge's price against the catalogue's, a bill's date...): sent back as given",
  },
});

export const requestApprovalBodySchema: JsonSchema = strict({
  type: 'object',
  description:
    "Asks an admin to approve what a control refused: the refusal's `approval` (store_id and checks) and why. An admin's own request is approved as it is made.",
  example: {
    store_id: 1,
    checks: [{ rule: 'price_override', details: { charge_id: 3, catalogue_price: 1100, unit_price: 1 } }],
    reason: 'Staff rate for the ECG',
  },
  required: ['store_id', 'checks', 'reason'],
  properties: {
    store_id: F.store_id.schema,
    checks: { ...F.checks.schema, items: approvalCheckSchema },
    reason: nonBlank(Limits.cancelReasonMaxLength),
  },
});

export const decideApprovalBodySchema = (noteRequired: boolean): JsonSchema =>
  strict({
    type: 'object',
    ...(noteRequired ? { required: ['note'] } : {}),
    properties: {
      note: noteRequired ? nonBlank(Limits.cancelReasonMaxLength) : optionalText(Limits.cancelReasonMaxLength),
    },
  });

export const approvalsQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id'],
  properties: {
    store_id: idSchema,
    date: { ...dateSchema, description: 'the day it was asked for' },
    status: F.approval_status.schema,
  },
};

/** Who asked or decided: the token's claims and the staff user it maps to. */
export const staffActorSchema: JsonSchema = objectSchema(
  {
    ...(actorSchema.properties as Record<string, JsonSchema>),
    user_id: { ...idSchema, nullable: true },
    user_name: { type: 'string', nullable: true },
  },
  ['sub', 'role', 'user_id', 'user_name'],
);

export const approvalSchema: JsonSchema = objectSchema({
  id: idSchema,
  store_id: idSchema,
  status: { type: 'string', enum: [...APPROVAL_STATUSES] },
  checks: { type: 'array', items: approvalCheckSchema },
  reason: { type: 'string' },
  requested_by: staffActorSchema,
  requested_at: { ...timestampSchema, nullable: false },
  decided_by: { ...staffActorSchema, nullable: true },
  decided_at: timestampSchema,
  note: { type: 'string', nullable: true },
  used: {
    ...objectSchema({
      target: { type: 'string', enum: [...APPROVAL_TARGETS] },
      id: { type: 'string', description: "the bill's, the charge's or the refund's id" },
      at: { ...timestampSchema, nullable: false },
      by: actorSchema,
    }),
    nullable: true,
  },
});

export const approvalReplies = {
  one: successSchema({ approval: approvalSchema }),
  changed: successSchema({ message: { type: 'string' }, approval: approvalSchema }),
  list: successSchema({ approvals: { type: 'array', items: approvalSchema } }),
} as const;

/** Catalogue's use of an approval over NATS: checked against what it covers, then marked used (or released). */
export const useApprovalBodySchema: JsonSchema = strict({
  type: 'object',
  required: ['approval_id', 'store_id', 'checks', 'target', 'target_id'],
  properties: {
    approval_id: F.approval_id.schema,
    store_id: F.store_id.schema,
    checks: { ...F.checks.schema, items: approvalCheckSchema },
    target: F.target.schema,
    target_id: { type: 'string', minLength: 1, maxLength: 100 },
  },
});
export const releaseApprovalBodySchema: JsonSchema = strict({
  type: 'object',
  required: ['approval_id', 'target', 'target_id'],
  properties: {
    approval_id: F.approval_id.schema,
    target: F.target.schema,
    target_id: { type: 'string', minLength: 1, maxLength: 100 },
  },
});

/** What an APPROVAL_REQUIRED refusal carries besides its text: POST it to /approvals with a reason. */
export const approvalNeededSchema: JsonSchema = {
  ...objectSchema({ store_id: idSchema, checks: { type: 'array', items: approvalCheckSchema } }),
  description: 'APPROVAL_REQUIRED only: what needs approval, as POST /approvals takes it',
};
