/** The cash office's requests and answers (issue 43): shifts and their drawers, approvals, the day-end's sections. */
import { PAYMENT_METHODS } from '../fields/billing';
import {
  APPROVAL_RULES,
  APPROVAL_STATUSES,
  APPROVAL_TARGETS,
  CASH_OFFICE_FIELDS as F,
  SHIFT_MOVEMENTS,
  SHIFT_STATUSES,
} from '../fields/cash-office';
import { CASH_OUTCOMES } from '../fields/billing-money';
import { Limits } from '../limits';
import {
  actorSchema,
  dateSchema,
  idSchema,
  nonBlank,
  objectSchema,
  optionalText,
  successSchema,
  timestampSchema,
  type JsonSchema,
} from './common';

const money: JsonSchema = { type: 'number' };
const nullableMoney: JsonSchema = { type: 'number', nullable: true };
const perMethod: JsonSchema = objectSchema(Object.fromEntries(PAYMENT_METHODS.map((m) => [m, money])));
/** New routes refuse what they do not know: a misspelt field is a 400 naming it. */
const strict = (schema: JsonSchema): JsonSchema => ({ ...schema, additionalProperties: false });

export const denominationsSchema: JsonSchema = {
  ...F.denominations.schema,
  description: 'the notes and coins counted: each face value and how many; they add up to the amount',
  items: strict(
    objectSchema({ value: F.denomination_value.schema, count: F.denomination_count.schema }, ['value', 'count']),
  ),
};

/** A money move's optional drawer: the open shift that pays or takes it (default: the caller's own). */
export const shiftIdProperty: JsonSchema = {
  ...F.shift_id.schema,
  nullable: true,
  description:
    "with CASH_SHIFTS=on: the open shift whose drawer the money moves in; default the caller's own open shift at the branch (an admin may name any)",
};

/** A controlled request's approval, given by an admin (POST /approvals). */
export const approvalIdProperty: JsonSchema = {
  ...F.approval_id.schema,
  nullable: true,
  description: 'the approval an admin gave for what the controls refused (APPROVAL_REQUIRED); used once',
};

export const openShiftBodySchema: JsonSchema = strict({
  type: 'object',
  description: "Opens the caller's shift at a branch with the cash put in its drawer.",
  example: {
    store_id: 1,
    float: 5000,
    float_denominations: [
      { value: 1000, count: 4 },
      { value: 100, count: 10 },
    ],
  },
  required: ['store_id', 'float'],
  properties: {
    store_id: F.store_id.schema,
    float: { ...F.cash.schema, description: 'the opening float: cash in the drawer as the shift begins' },
    float_denominations: denominationsSchema,
    note: optionalText(Limits.cancelReasonMaxLength),
  },
});

export const shiftMovementBodySchema = (reasonRequired: boolean): JsonSchema =>
  strict({
    type: 'object',
    example: { amount: 10000, reason: reasonRequired ? 'Stationery' : 'To the safe' },
    required: reasonRequired ? ['amount', 'reason'] : ['amount'],
    properties: {
      amount: { ...F.positive_cash.schema, description: 'at most the cash the drawer holds' },
      reason: reasonRequired ? nonBlank(Limits.cancelReasonMaxLength) : optionalText(Limits.cancelReasonMaxLength),
    },
  });

export const closeShiftBodySchema: JsonSchema = strict({
  type: 'object',
  description: 'The count of the drawer at the close: over or short is the count less what the drawer should hold.',
  example: { counted: 15250 },
  required: ['counted'],
  properties: {
    counted: F.cash.schema,
    denominations: denominationsSchema,
    note: optionalText(Limits.cancelReasonMaxLength),
  },
});

export const handoverBodySchema: JsonSchema = strict({
  type: 'object',
  description: 'The drawer counted and passed to the next cashier, who accepts the counted amount.',
  example: { to_user_id: 8, counted: 15250 },
  required: ['to_user_id', 'counted'],
  properties: {
    to_user_id: { ...F.to_user_id.schema, description: 'the staff user who takes the drawer over' },
    counted: F.cash.schema,
    denominations: denominationsSchema,
    note: optionalText(Limits.cancelReasonMaxLength),
  },
});

export const acceptHandoverBodySchema: JsonSchema = strict({
  type: 'object',
  example: { amount: 15250 },
  required: ['amount'],
  properties: { amount: { ...F.cash.schema, description: 'the amount counted at the handover, confirmed' } },
});

export const signOffBodySchema: JsonSchema = strict({
  type: 'object',
  properties: { note: optionalText(Limits.cancelReasonMaxLength) },
});

export const shiftsQuerySchema: JsonSchema = {
  type: 'object',
  required: ['store_id', 'date'],
  properties: {
    store_id: idSchema,
    date: { ...dateSchema, description: 'the day the shifts opened' },
    status: F.shift_status.schema,
  },
};

const userProperties = {
  user_id: idSchema,
  user_name: { type: 'string', nullable: true },
};

const countSchema: JsonSchema = objectSchema({
  counted: money,
  denominations: { ...denominationsSchema, nullable: true },
  expected: { ...money, description: 'float + cash taken - cash given back, paid out and dropped' },
  difference: { ...money, description: 'counted less expected: over above 0, short below' },
  outcome: { type: 'string', enum: CASH_OUTCOMES.filter((o) => o !== 'not counted') },
  at: { ...timestampSchema, nullable: false },
  by: actorSchema,
  note: { type: 'string', nullable: true },
});

export const shiftSchema: JsonSchema = objectSchema({
  id: idSchema,
  store_id: idSchema,
  day: { ...dateSchema, description: 'the day it opened' },
  ...userProperties,
  status: { type: 'string', enum: [...SHIFT_STATUSES] },
  opened_at: { ...timestampSchema, nullable: false },
  opened_by: actorSchema,
  float: money,
  float_denominations: { ...denominationsSchema, nullable: true },
  from_shift_id: { ...idSchema, nullable: true, description: 'the shift handed over to this one' },
  cash: {
    ...objectSchema({
      float: money,
      taken: { ...money, description: 'cash payments (and payouts given back)' },
      given_back: { ...money, description: 'cash refunds and reversals' },
      paid_to_doctors: money,
      dropped: money,
      paid_out: { ...money, description: 'petty-cash payouts' },
      expected: { ...money, description: 'what the drawer should hold now' },
    }),
    description: 'the drawer from its ledger; money still being recorded is not in it yet',
  },
  taken: { ...perMethod, description: 'payments per tender' },
  given_back: { ...perMethod, description: 'refunds and reversals per tender' },
  movements: {
    type: 'array',
    items: objectSchema({
      id: { type: 'string' },
      kind: { type: 'string', enum: [...SHIFT_MOVEMENTS] },
      amount: money,
      reason: { type: 'string', nullable: true },
      at: { ...timestampSchema, nullable: false },
      by: actorSchema,
    }),
  },
  count: { ...countSchema, nullable: true },
  handover: {
    ...objectSchema({
      to_user_id: idSchema,
      to_user_name: { type: 'string', nullable: true },
      to_shift_id: { ...idSchema, nullable: true },
      at: { ...timestampSchema, nullable: false },
      accepted_at: timestampSchema,
    }),
    nullable: true,
  },
  sign_off: {
    ...objectSchema({
      by: actorSchema,
      at: { ...timestampSchema, nullable: false },
      note: { type: 'string', nullable: true },
    }),
    nullable: true,
  },
  closed_at: timestampSchema,
});

export const shiftReplies = {
  one: successSchema({ shift: shiftSchema }),
  changed: successSchema({ message: { type: 'string' }, shift: shiftSchema }),
  accepted: successSchema({ message: { type: 'string' }, shift: shiftSchema, from: shiftSchema }),
  list: successSchema({ shifts: { type: 'array', items: shiftSchema } }),
} as const;

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

const staffActorSchema: JsonSchema = objectSchema(
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

/** The day-end's money per tender from the ledger: what was actually taken and given back. */
export const dayEndTendersSchema: JsonSchema = {
  ...objectSchema(
    Object.fromEntries(
      PAYMENT_METHODS.map((m) => [
        m,
        objectSchema({
          taken: money,
          given_back: { ...money, description: 'refunds and reversals' },
          paid_out: { ...money, description: "doctors' payouts (less those given back) and petty cash" },
          dropped: { ...money, description: 'cash put in the safe from the drawers' },
          net: { ...money, description: 'taken less given back and paid out' },
        }),
      ]),
    ),
  ),
  description: 'per tender, from the ledger of the day (what moved, whatever the bills say); present once money moved',
};

export const dayEndShiftSchema: JsonSchema = objectSchema({
  id: idSchema,
  ...userProperties,
  status: { type: 'string', enum: [...SHIFT_STATUSES] },
  opened_at: { ...timestampSchema, nullable: false },
  closed_at: timestampSchema,
  float: money,
  taken: perMethod,
  given_back: perMethod,
  paid_to_doctors: money,
  dropped: money,
  paid_out: money,
  expected: money,
  counted: nullableMoney,
  difference: nullableMoney,
  outcome: { type: 'string', enum: [...CASH_OUTCOMES] },
  handed_to: { ...idSchema, nullable: true },
  signed_off_by: { ...actorSchema, nullable: true },
});

export const dayEndExceptionSchema: JsonSchema = objectSchema({
  approval_id: idSchema,
  status: { type: 'string', enum: [...APPROVAL_STATUSES] },
  rules: { type: 'array', items: { type: 'string', enum: [...APPROVAL_RULES] } },
  checks: { type: 'array', items: approvalCheckSchema },
  reason: { type: 'string' },
  requested_by: staffActorSchema,
  requested_at: { ...timestampSchema, nullable: false },
  approved_by: { ...staffActorSchema, nullable: true },
  approved_at: timestampSchema,
  used_on: { type: 'string', nullable: true, description: 'what it was used on: `bill 12`, `charge 3`, `refund <id>`' },
});

/** What the cash office adds to GET /lab_bills/day_end (each absent when it holds nothing). */
export const cashOfficeDayEndProperties: Record<string, JsonSchema> = {
  tenders: dayEndTendersSchema,
  shifts: {
    type: 'array',
    items: dayEndShiftSchema,
    description: 'the shifts opened at the branch that day; absent when none was',
  },
  exceptions: {
    type: 'array',
    items: dayEndExceptionSchema,
    description: 'the approvals asked for at the branch that day, whatever became of them; absent when none was',
  },
};
