/**
 * What a receipt may say about a bill's money, from its ledger, the
 * authority: the tenders it was paid in, its status once money went back,
 * and the cash handed over. Pure; the types are what these rules read.
 */
import type { PaymentMethod, PaymentStatus } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';

export interface LedgerLine {
  kind: 'payment' | 'refund' | 'reversal';
  amount_cents: Cents;
  method: PaymentMethod;
  received_cents: Cents | null;
  change_cents: Cents | null;
}

/** A bill as these rules read it, with its money as money-rules' moneyOf gives it. */
export interface BillFigures {
  payment_method: PaymentMethod;
  payment_status: PaymentStatus;
  received_cents: Cents | null;
  balance_cents: Cents | null;
  money: { paid: Cents; refunded: Cents; ledger: readonly LedgerLine[] };
}

export type ReceiptStatus = PaymentStatus | 'Refunded' | 'Partly refunded';

/** Paid or Pending as the bill says, until money went back: then Refunded (all of it) or Partly refunded. */
export function receiptStatus(bill: BillFigures): ReceiptStatus {
  const { paid, refunded } = bill.money;
  if (refunded <= 0) return bill.payment_status;
  return refunded >= paid ? 'Refunded' : 'Partly refunded';
}

/**
 * What each method took, payments less reversals, in the order first used;
 * a bill paid before the ledger existed was paid in its method.
 */
export function tenders(bill: BillFigures): Array<{ method: PaymentMethod; amount: Cents }> {
  const net = new Map<PaymentMethod, Cents>();
  for (const line of bill.money.ledger) {
    if (line.kind === 'refund') continue;
    const sign = line.kind === 'payment' ? 1 : -1;
    net.set(line.method, (net.get(line.method) ?? 0) + sign * line.amount_cents);
  }
  if (bill.money.ledger.length === 0 && bill.money.paid > 0) net.set(bill.payment_method, bill.money.paid);
  return [...net].filter(([, amount]) => amount > 0).map(([method, amount]) => ({ method, amount }));
}

/**
 * Cash handed over and the change given back, as the ledger's cash payments
 * recorded them. The spec's `received_amount` and `balance_amount` are a
 * client's words, which a PUT may set to anything: where they agree with the
 * ledger they are these figures, where not the ledger is right. Null when no
 * cash was taken.
 */
export function cashHandedOver(bill: BillFigures): { received: Cents; balance: Cents } | null {
  const cash = bill.money.ledger.filter((line) => line.kind === 'payment' && line.method === 'Cash');
  if (cash.length === 0) {
    // Paid before the ledger existed: the bill's own words are all there is.
    const legacy = bill.money.ledger.length === 0 && bill.money.paid > 0 && bill.payment_method === 'Cash';
    return legacy && bill.received_cents !== null && bill.balance_cents !== null
      ? { received: bill.received_cents, balance: bill.balance_cents }
      : null;
  }
  const received = cash.reduce((sum, line) => sum + (line.received_cents ?? line.amount_cents), 0);
  const balance = cash.reduce((sum, line) => sum + (line.change_cents ?? 0), 0);
  return { received, balance };
}
