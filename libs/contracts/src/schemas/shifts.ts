/** The shift routes' requests and answers: a cashier's shift and its drawer. */
import { PAYMENT_METHODS } from '../fields/billing';
import { CASH_OUTCOMES } from '../fields/billing-money';
import { CASH_OFFICE_FIELDS as F, SHIFT_MOVEMENTS, SHIFT_STATUSES } from '../fields/cash-office';
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

const money: JsonSchema = { type: 'number' };
/** An amount per tender. */
export const perMethod: JsonSchema = objectSchema(Object.fromEntries(PAYMENT_METHODS.map((m) => [m, money])));
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

/** The staff user a shift is of. */
export const userProperties = {
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
