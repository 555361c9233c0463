/**
 * A credit note: the paper that gives money back against a bill, one per
 * refund and one per cancellation, with a number of its own. What it says is
 * read from the bill's ledger and its cancellation's history entry. Pure.
 */
import type { Caller, CreditNoteKind, PaymentMethod } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';

/** A ledger entry as a credit note reads it. */
export interface GivenBackEntry {
  id: string;
  kind: 'payment' | 'refund' | 'reversal';
  amount_cents: Cents;
  method: PaymentMethod;
  reason: string | null;
  item_id: number | null;
  day: string;
  at: Date;
  by: Caller;
}

export interface CreditNoteFacts {
  kind: CreditNoteKind;
  /** What the note is of, once: its number is kept under this key. */
  key: string;
  /** The day its number is of: the day the money went back, or the bill was cancelled. */
  day: string;
  at: Date;
  by: Caller | null;
  reason: string | null;
  /** What went back, per method (none for a cancelled bill that held no money). */
  lines: Array<{ method: PaymentMethod; amount: Cents }>;
  itemId: number | null;
}

export const creditNoteKey = (kind: CreditNoteKind, id: string | number) => `${kind}:${id}`;

/** The note of one refund of the bill; null when the bill has no refund of that id (a payment has none). */
export function refundNote(ledger: readonly GivenBackEntry[], refundId: string): CreditNoteFacts | null {
  const entry = ledger.find((e) => e.id === refundId && e.kind === 'refund');
  if (!entry) return null;
  return {
    kind: 'refund',
    key: creditNoteKey('refund', entry.id),
    day: entry.day,
    at: entry.at,
    by: entry.by,
    reason: entry.reason,
    lines: [{ method: entry.method, amount: entry.amount_cents }],
    itemId: entry.item_id,
  };
}

/** The bill's cancellation as its history entry recorded it (null fields: cancelled before the audit trail). */
export interface Cancellation {
  billId: number;
  at: Date;
  day: string;
  by: Caller | null;
  reason: string | null;
  /** The ids of the refunds the cancellation made. */
  entryIds: readonly string[];
}

/** The note of a cancelled bill: what its cancellation gave back, per method. */
export function cancellationNote(ledger: readonly GivenBackEntry[], cancellation: Cancellation): CreditNoteFacts {
  const made = ledger.filter((e) => e.kind === 'refund' && cancellation.entryIds.includes(e.id));
  const perMethod = new Map<PaymentMethod, Cents>();
  for (const entry of made) perMethod.set(entry.method, (perMethod.get(entry.method) ?? 0) + entry.amount_cents);
  return {
    kind: 'cancellation',
    key: creditNoteKey('cancellation', cancellation.billId),
    day: made[0]?.day ?? cancellation.day,
    at: cancellation.at,
    by: cancellation.by,
    reason: cancellation.reason,
    lines: [...perMethod].map(([method, amount]) => ({ method, amount })),
    itemId: null,
  };
}

/** A note's number, kept once given (storage implements it): the same key always reads the same number. */
export interface CreditNoteNumbers {
  numberOf(note: Pick<CreditNoteFacts, 'kind' | 'key' | 'day'> & { billId: number }): Promise<string>;
}
