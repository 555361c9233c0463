/** What printed papers are numbered and called: credit notes, and the copies of a printed paper. */

/** A credit note gives money back against a bill: one refund, or the bill's cancellation. */
export const CREDIT_NOTE_KINDS = ['refund', 'cancellation'] as const;
export type CreditNoteKind = (typeof CREDIT_NOTE_KINDS)[number];

/** The papers whose prints a bill's history counts. */
export const PRINTED_PAPERS = ['receipt', 'refund_slip', 'cancellation_slip'] as const;
export type PrintedPaper = (typeof PRINTED_PAPERS)[number];

/** `CN-<the credit note's day without dashes>-<its sequence, 4 digits or more>`: CN-20261121-0001. */
export const CREDIT_NOTE_NUMBER_PATTERN = '^CN-\\d{8}-\\d{4,}$';

export function formatCreditNoteNumber(day: string, seq: number): string {
  return `CN-${day.replaceAll('-', '')}-${String(seq).padStart(4, '0')}`;
}

export const PAPER_MESSAGES = {
  refundNotFound: 'Refund not found.',
  notCancelled: 'Bill is not cancelled.',
} as const;
