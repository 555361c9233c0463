/** A new bill's document, and what the batches of new bills need to know of each (see new-bills.ts). */
import { formatBillNumber, type Caller } from '@clinic/contracts';
import { itemAt } from '@clinic/service-kit';
import { docKey } from './database-quirks';
import type { BillInput, Totals } from '../domain/rules';
import { ITEM_ID_FACTOR } from './documents';
import type { BillDoc } from '../domain/bill';
import type { IdempotencyClaim } from '@clinic/service-kit';
import type { LedgerEntryDoc } from '../domain/ledger-entry';
import type { CashGuard } from '../domain/cash-guard';
import { searchTextOf } from './search';

/**
 * What a new bill records besides itself: the payment of a bill created Paid,
 * its history entry's details, and the checks of the shift that takes the payment.
 */
export interface CreateExtras {
  entries: LedgerEntryDoc[];
  details?: Record<string, unknown>;
  cash?: CashGuard;
}

/** What a new bill's document is made of. */
export interface NewBill extends CreateExtras {
  id: number;
  input: BillInput;
  totals: Totals;
  /** Null for imported bills, which have no history. */
  actor: Caller | null;
  idempotency: IdempotencyClaim | null;
}

export type CreateResult = { doc: BillDoc; replayed: boolean };

/** A bill waiting to be numbered and written. */
export interface PendingBill extends NewBill {
  correlationId: string;
  attempts: number;
  resolve(result: CreateResult): void;
  reject(err: unknown): void;
}

/** A new bill's document under its number (`seq`), with the id of its creation's event. */
export function newBillDoc(bill: NewBill, seq: number, eventId: string): BillDoc {
  const { id, input, totals, idempotency, entries } = bill;
  const { items, received_cents, balance_cents, ...header } = input;
  const billNumber = formatBillNumber(input.bill_date, seq);
  return {
    _id: docKey(id),
    id,
    bill_number: billNumber,
    bill_seq: seq,
    ...header,
    discount_cents: totals.discount,
    subtotal_cents: totals.subtotal,
    grand_total_cents: totals.grand_total,
    received_cents: input.payment_method === 'Cash' ? received_cents : null,
    balance_cents: input.payment_method === 'Cash' ? balance_cents : null,
    status: 'active',
    is_deleted: false,
    // To the second, as the API shows it: bills created in the same second list by id, newest id first.
    created_at: new Date(Math.floor(Date.now() / 1000) * 1000),
    updated_at: null,
    // computeTotals answers one line total per item.
    items: items.map((item, index) => ({
      id: id * ITEM_ID_FACTOR + index + 1,
      ...item,
      line_total_cents: itemAt(totals.line_totals, index),
    })),
    search_text: searchTextOf({ ...header, bill_number: billNumber }),
    ...(idempotency ? { idempotency_key: idempotency.key, request_hash: idempotency.requestHash } : {}),
    // A bill made through the API holds the payment it recorded; an imported Paid one, its total (as before the ledger).
    paid_cents: bill.actor
      ? entries.reduce((sum, e) => sum + e.amount_cents, 0)
      : input.payment_status === 'Paid'
        ? totals.grand_total
        : 0,
    refunded_cents: 0,
    ledger: entries,
    _event_ids: [eventId],
  };
}

/** The days a new bill must find open: its date, and the day its payment is taken on. */
export function daysOf(bill: NewBill): string[] {
  return [...new Set([bill.input.bill_date, ...bill.entries.map((e) => e.day)])];
}

/** The highest sequence number per bill date among these bills. */
export function highestSeqs(docs: BillDoc[]): Map<string, number> {
  const highest = new Map<string, number>();
  for (const doc of docs) highest.set(doc.bill_date, Math.max(doc.bill_seq, highest.get(doc.bill_date) ?? 0));
  return highest;
}
