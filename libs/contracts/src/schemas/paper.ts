/**
 * What the papers' routes take and the day-end's printed closing answers
 *: credit notes' queries, and the day-end report's refunds,
 * money net of them, and closing status.
 */
import { BILL_FIELDS as F, PAYMENT_METHODS } from '../fields/billing';
import { DAY_STATUSES, LEDGER_KINDS } from '../fields/billing-money';
import { PRINTED_PAPERS } from '../fields/paper';
import { closingSchema } from './billing-money';
import { idSchema, objectSchema, timestampSchema, type JsonSchema } from './common';

const sizeSchema: JsonSchema = { ...F.receipt_size.schema, description: '80 mm roll (default) or A5 sheet' };

export const refundSlipQuerySchema: JsonSchema = {
  type: 'object',
  required: ['refund_id'],
  properties: {
    refund_id: { type: 'string', maxLength: 100, description: "the refund's id, as the bill's payments list it" },
    size: sizeSchema,
  },
};

export const cancellationSlipQuerySchema: JsonSchema = { type: 'object', properties: { size: sizeSchema } };

/** A refund or reversal of the day, as the day-end lists it. */
export const dayEndRefundSchema: JsonSchema = objectSchema({
  id: { type: 'string', description: 'the ledger entry (its refund slip: GET /lab_bills/{bill_id}/refund_slip)' },
  bill_id: { ...idSchema, nullable: true, description: "null for an appointment's money" },
  bill_number: { type: 'string', nullable: true },
  appointment_id: { ...idSchema, nullable: true },
  kind: { type: 'string', enum: LEDGER_KINDS.filter((k) => k !== 'payment') },
  method: { type: 'string', enum: [...PAYMENT_METHODS] },
  amount: { type: 'number' },
  at: { ...timestampSchema, nullable: false },
  by: { description: 'the token `sub` of who gave it back', anyOf: [{ type: 'integer' }, { type: 'string' }] },
  by_name: { type: 'string', nullable: true },
  reason: { type: 'string', nullable: true },
});

/** The day-end report's paper fields, beside dayEndSchema's. */
export const dayEndPaperProperties: Record<string, JsonSchema> = {
  refunds: {
    type: 'array',
    items: dayEndRefundSchema,
    description: 'the money given back in the branch that day (refunds, reversals), oldest first',
  },
  net: {
    ...objectSchema({
      collected: { type: 'number', description: 'payments taken that day, every method' },
      given_back: { type: 'number', description: 'refunds and reversals of that day' },
      net: { type: 'number', description: 'collected less given back' },
    }),
    description: "the day's money net of what was given back (bills and appointments, by the day it moved)",
  },
  closing: {
    ...closingSchema,
    description: `the day's closing as GET /lab_bills/day_close answers it: status one of ${DAY_STATUSES.join(', ')}`,
  },
};

/** What a `printed` history entry adds: which paper, which copy (1: the original), in which size. */
export const printedEntryProperties: Record<string, JsonSchema> = {
  paper: { type: 'string', enum: [...PRINTED_PAPERS], description: '`printed` only' },
  copy: { type: 'integer', minimum: 1, description: '`printed` only: 1 for the original, n + 1 for DUPLICATE n' },
  size: { ...F.receipt_size.schema, description: '`printed` only' },
  credit_note_number: { type: 'string', description: '`printed` slips only: the credit note printed' },
};
