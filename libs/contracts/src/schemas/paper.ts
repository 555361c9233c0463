/**
 * What the papers' routes take and their history entries say (issue 44):
 * credit notes' queries, and a print's entry in a bill's history.
 */
import { BILL_FIELDS as F } from '../fields/billing';
import { PRINTED_PAPERS } from '../fields/paper';
import type { JsonSchema } from './common';

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

/** What a `printed` history entry adds: which paper, which copy (1: the original), in which size. */
export const printedEntryProperties: Record<string, JsonSchema> = {
  paper: { type: 'string', enum: [...PRINTED_PAPERS], description: '`printed` only' },
  copy: { type: 'integer', minimum: 1, description: '`printed` only: 1 for the original, n + 1 for DUPLICATE n' },
  size: { ...F.receipt_size.schema, description: '`printed` only' },
  credit_note_number: { type: 'string', description: '`printed` slips only: the credit note printed' },
};
