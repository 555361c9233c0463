/** The requests and answers of a bill's payments and refunds and of a branch's closed day. */
import { PAYMENT_METHODS, PAYMENT_STATUSES } from '../fields/billing';
import { CASH_OUTCOMES, DAY_STATUSES, LEDGER_FIELDS as F, LEDGER_KINDS } from '../fields/billing-money';
import { Limits } from '../limits';
import {
  actorSchema,
  dateSchema,
  idSchema,
  nonBlank,
  objectSchema,
  timestampSchema,
  UNKNOWN_FIELDS_REFUSED_NOTE,
  type JsonSchema,
} from './common';
import { approvalIdProperty } from './approvals';
import { shiftIdProperty } from './shifts';

const nullableMoney: JsonSchema = { type: 'number', nullable: true };
const perMethod: JsonSchema = {
  type: 'object',
  required: [...PAYMENT_METHODS],
  properties: Object.fromEntries(PAYMENT_METHODS.map((m) => [m, { type: 'number' }])),
};

export const paymentBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: `A payment towards the bill; the collector is the caller. ${UNKNOWN_FIELDS_REFUSED_NOTE}`,
  example: { amount: 1000, method: 'Cash', received_amount: 1500 },
  required: ['amount', 'method'],
  properties: {
    amount: { ...F.amount.schema, description: 'at most the amount due' },
    method: F.method.schema,
    received_amount: {
      ...F.received_amount.schema,
      nullable: true,
      description: 'Cash only: what the patient handed over, at least the amount; the change is computed',
    },
    reference: { ...F.reference.schema, description: 'a card slip or transfer number' },
    shift_id: shiftIdProperty,
  },
};

export const refundBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: `Money given back; the bill stays as it is. ${UNKNOWN_FIELDS_REFUSED_NOTE}`,
  example: { amount: 850, method: 'Cash', reason: 'Test not done', item_id: 12001 },
  required: ['amount', 'method', 'reason'],
  properties: {
    amount: { ...F.amount.schema, description: 'at most what was paid and not yet refunded' },
    method: F.method.schema,
    reason: { ...nonBlank(Limits.cancelReasonMaxLength) },
    item_id: { ...F.item_id.schema, nullable: true, description: 'the refunded item (at most its line total in all)' },
    shift_id: shiftIdProperty,
    approval_id: approvalIdProperty,
  },
};

export const dayCloseBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: UNKNOWN_FIELDS_REFUSED_NOTE,
  // Another day than the bills' examples: a day closed by trying the example keeps its bills from changing.
  example: { store_id: 1, date: '2026-11-20', counted_cash: [{ user_id: 7, amount: 45250 }] },
  required: ['store_id', 'date'],
  properties: {
    store_id: F.store_id.schema,
    date: { ...F.date.schema, example: '2026-11-20', description: 'the day the money moved; today or earlier' },
    counted_cash: {
      ...F.counted_cash.schema,
      description: "the cash counted in each user's drawer",
      items: {
        ...objectSchema({ user_id: F.user_id.schema, amount: F.counted_amount.schema }),
        additionalProperties: false,
      },
    },
  },
};

export const dayQuerySchema: JsonSchema = objectSchema({ store_id: idSchema, date: dateSchema });

export const reopenDayBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  description: UNKNOWN_FIELDS_REFUSED_NOTE,
  required: ['reason'],
  properties: {
    reason: { ...nonBlank(Limits.cancelReasonMaxLength), example: 'Counted before the last patient paid' },
  },
};

/** One payment, refund or reversal of a bill. */
export const ledgerEntrySchema: JsonSchema = objectSchema({
  id: { type: 'string', description: 'also the id of its event (payment_recorded or refunded)' },
  kind: { type: 'string', enum: [...LEDGER_KINDS] },
  amount: { type: 'number' },
  method: { type: 'string', enum: [...PAYMENT_METHODS] },
  received_amount: { ...nullableMoney, description: 'Cash payments: what the patient handed over' },
  change_amount: { ...nullableMoney, description: 'Cash payments: what was given back' },
  reference: { type: 'string', nullable: true },
  reason: { type: 'string', nullable: true },
  item_id: { ...idSchema, nullable: true },
  day: { ...dateSchema, description: "the clinic's day the money moved (its drawer)" },
  at: { ...timestampSchema, nullable: false },
  by: { ...actorSchema, description: 'who took or gave back the money' },
  drawer: {
    ...objectSchema({ user_id: F.user_id.schema, shift_id: { ...idSchema, nullable: true } }),
    description:
      'whose drawer the money moved in: the staff user (a token mapped to one, else its `sub`) and, with CASH_SHIFTS=on, the shift',
  },
});

/** What a bill's money stands at. */
export const balanceProperties: Record<string, JsonSchema> = {
  grand_total: { type: 'number' },
  paid_amount: { type: 'number', description: 'payments less reversals' },
  refunded_amount: { type: 'number' },
  due_amount: { type: 'number', description: 'grand_total less paid_amount, never below 0' },
  payment_status: { type: 'string', enum: [...PAYMENT_STATUSES] },
};

/** A bill's money as its money events carry it (not the whole bill: bill_id, not id). */
const billBalanceSchema: JsonSchema = objectSchema({
  bill_id: idSchema,
  bill_number: { type: 'string' },
  store_id: idSchema,
  bill_date: dateSchema,
  ...balanceProperties,
});

export const paymentEventDataSchema: JsonSchema = objectSchema({ payment: ledgerEntrySchema, bill: billBalanceSchema });
export const refundEventDataSchema: JsonSchema = objectSchema({ refund: ledgerEntrySchema, bill: billBalanceSchema });

export const cashCountSchema: JsonSchema = objectSchema({
  user_id: F.user_id.schema,
  user_name: { type: 'string', nullable: true },
  expected: { type: 'number', description: 'cash collected less cash given back that day' },
  counted: { ...nullableMoney, description: 'null when not counted' },
  difference: { ...nullableMoney, description: 'counted less expected: over above 0, short below' },
  outcome: { type: 'string', enum: [...CASH_OUTCOMES] },
});

export const closingSchema: JsonSchema = objectSchema({
  store_id: idSchema,
  date: dateSchema,
  status: { type: 'string', enum: [...DAY_STATUSES] },
  closed_at: timestampSchema,
  closed_by: { ...actorSchema, nullable: true },
  cash: { type: 'array', items: cashCountSchema, description: 'per user, while the day is closed' },
  history: {
    type: 'array',
    description: 'every closing and reopening of the day, oldest first',
    items: objectSchema(
      {
        action: { type: 'string', enum: ['closed', 'reopened'] },
        at: { ...timestampSchema, nullable: false },
        by: actorSchema,
        reason: { type: 'string', nullable: true },
        cash: { type: 'array', items: cashCountSchema },
      },
      ['action', 'at', 'by'],
    ),
  },
});

export const closingEventDataSchema: JsonSchema = objectSchema({ closing: closingSchema });

/** The day-end report's drawer: per user who took or gave back money that day. */
export const drawerEntrySchema: JsonSchema = objectSchema(
  {
    user_id: F.user_id.schema,
    user_name: { type: 'string', nullable: true },
    collected: perMethod,
    refunded: { ...perMethod, description: 'refunds and reversals' },
    paid_out: {
      ...perMethod,
      description:
        "doctors' payouts less those given back, and petty cash; present only for a user who paid one that day",
    },
    dropped: { ...perMethod, description: 'cash put in the safe from their drawer; present only when they did' },
    cash_in_drawer: { type: 'number', description: 'cash collected less cash given back and paid out' },
  },
  ['user_id', 'user_name', 'collected', 'refunded', 'cash_in_drawer'],
);

/** The day-end's channeling money: appointments' fees by share, and doctors' payouts. */
const sharesSchema: JsonSchema = objectSchema({
  doctor_share: { type: 'number' },
  hospital_share: { type: 'number' },
  total: { type: 'number' },
});
export const dayEndChannelingSchema: JsonSchema = {
  ...objectSchema({
    taken: {
      ...sharesSchema,
      description: "appointments' payments that day, in the doctor's and the hospital's shares",
    },
    refunded: { ...sharesSchema, description: 'refunds of appointments that day, by share' },
    paid_out_to_doctors: { type: 'number', description: 'settlements paid out that day less payouts given back' },
    payouts_reversed: { type: 'number', description: 'payouts given back into a drawer that day' },
  }),
  description: 'present once channeling money moved in the branch that day',
};

export const owedSchema: JsonSchema = {
  type: 'object',
  description: 'live Pending bills of the date and what they still owe; never counted as collected',
  required: ['bill_count', 'due_amount'],
  properties: { bill_count: { type: 'integer' }, due_amount: { type: 'number' } },
};
