/**
 * What moves a bill's money, as pure rules over the bill as found:
 * a payment or a refund through the new routes, and what the spec's own
 * writes mean for the ledger (a bill created Paid, a PUT of payment_status
 * or payment_method, a cancellation). Each answers the ledger entries to
 * record, or throws the refusal; storage writes them with the bill. The
 * rules of payments, refunds and giving back take any MoneyDoc, so that an
 * appointment's account moves money exactly as a bill does.
 */
import {
  LEDGER_MESSAGES,
  Limits,
  PAYMENT_METHODS,
  type Caller,
  type LedgerKind,
  type PaymentMethod,
  type PaymentStatus,
} from '@clinic/contracts';
import { badRequest, fail, type Cents } from '@clinic/service-kit';
import { backToDrawers, type DrawerRef } from './drawer';
import type { BillChanges } from './rules';
import type { BillChange, BillDoc } from './bill';
import type { LedgerEntryDoc, MoneyDoc } from './ledger-entry';

/** Who moves the money, on which day, in which drawer, and how entries get their ids (their events' ids). */
export interface Mover {
  by: Caller;
  day: string;
  at: Date;
  newId(): string;
  /** The drawer the money moves in (operations/cash-office.ts). */
  drawer: DrawerRef;
  /** Money given back (a cancellation, a bill set back to Pending) comes out of the drawers that took it. */
  backFromTakers?: boolean;
}

export interface PaymentInput {
  amount_cents: Cents;
  method: PaymentMethod;
  received_cents: Cents | null;
  reference: string | null;
}

export interface RefundInput {
  amount_cents: Cents;
  method: PaymentMethod;
  reason: string;
  item_id: number | null;
}

type Draft = Pick<LedgerEntryDoc, 'kind' | 'amount_cents' | 'method'> & Partial<LedgerEntryDoc>;

function entry(mover: Mover, draft: Draft): LedgerEntryDoc {
  return {
    received_cents: null,
    change_cents: null,
    reference: null,
    reason: null,
    item_id: null,
    ...draft,
    drawer: draft.drawer ?? mover.drawer,
    id: mover.newId(),
    day: mover.day,
    at: mover.at,
    by: { sub: mover.by.sub, role: mover.by.role },
  };
}

/** A cash payment's received amount and change, when what was handed over covers it. */
function cashOf(method: PaymentMethod, amount: Cents, received: Cents | null): Partial<LedgerEntryDoc> {
  if (method !== 'Cash' || received === null || received < amount) return {};
  return { received_cents: received, change_cents: received - amount };
}

/**
 * The cap of the new routes' entries (payments and refunds), counting every
 * entry of the bill. The spec's own writes (a PUT, a cancellation) are not
 * capped: the spec lets a client change a bill's payment status and method
 * at any time while it is active.
 */
function roomFor(doc: MoneyDoc, entries: number): void {
  if (moneyOf(doc).ledger.length + entries > Limits.ledgerEntriesMax) throw fail('LEDGER_FULL');
}

/** POST /lab_bills/{id}/payments: at most what is due. */
export function planPayment(doc: MoneyDoc, input: PaymentInput, mover: Mover): LedgerEntryDoc {
  roomFor(doc, 1);
  const { due } = moneyOf(doc);
  if (input.amount_cents > due) throw badRequest(LEDGER_MESSAGES.overDue(due), 'amount');
  return entry(mover, {
    kind: 'payment',
    amount_cents: input.amount_cents,
    method: input.method,
    reference: input.reference,
    ...cashOf(input.method, input.amount_cents, input.received_cents),
  });
}

/** POST /lab_bills/{id}/refunds: at most what was paid and not given back, and of an item at most its line total. */
export function planRefund(doc: MoneyDoc, input: RefundInput, mover: Mover): LedgerEntryDoc {
  roomFor(doc, 1);
  const money = moneyOf(doc);
  let itemLeft = Infinity;
  if (input.item_id !== null) {
    const item = doc.items.find((i) => i.id === input.item_id);
    if (!item) throw badRequest(LEDGER_MESSAGES.notAnItem, 'item_id');
    const refunded = money.ledger
      .filter((e) => e.kind === 'refund' && e.item_id === item.id)
      .reduce((sum, e) => sum + e.amount_cents, 0);
    itemLeft = item.line_total_cents - refunded;
  }
  if (input.amount_cents > money.held) throw badRequest(LEDGER_MESSAGES.overHeld(money.held), 'amount');
  if (input.amount_cents > itemLeft) throw badRequest(LEDGER_MESSAGES.overItem(itemLeft), 'amount');
  return entry(mover, { kind: 'refund', ...input });
}

/**
 * The money a bill holds, by method: what each method took in less what went
 * back in it, taken from the methods in the order they hold the most until
 * the whole is counted (a refund may be given in another method than the
 * payment). Money paid before the ledger existed is in the bill's method.
 */
export function heldByMethod(doc: MoneyDoc): Array<[PaymentMethod, Cents]> {
  const money = moneyOf(doc);
  const net = new Map<PaymentMethod, Cents>(PAYMENT_METHODS.map((m) => [m, 0]));
  for (const e of money.ledger)
    net.set(e.method, net.get(e.method)! + (e.kind === 'payment' ? 1 : -1) * e.amount_cents);
  const unrecorded = money.held - [...net.values()].reduce((sum, cents) => sum + cents, 0);
  if (unrecorded !== 0 && doc.payment_method) net.set(doc.payment_method, net.get(doc.payment_method)! + unrecorded);
  let left = money.held;
  const held: Array<[PaymentMethod, Cents]> = [];
  for (const [method, cents] of [...net].sort((a, b) => b[1] - a[1])) {
    const taken = Math.min(cents, left);
    if (taken <= 0) break;
    held.push([method, taken]);
    left -= taken;
  }
  return held;
}

/** A creation of a Paid bill: a payment of its total by the caller, in the bill's method. */
export function entriesOnCreate(
  bill: {
    grand_total_cents: Cents;
    payment_status: PaymentStatus;
    payment_method: PaymentMethod;
    received_cents: Cents | null;
  },
  mover: Mover,
): LedgerEntryDoc[] {
  if (bill.payment_status !== 'Paid' || bill.grand_total_cents === 0) return [];
  const amount = bill.grand_total_cents;
  return [
    entry(mover, {
      kind: 'payment',
      amount_cents: amount,
      method: bill.payment_method,
      ...cashOf(bill.payment_method, amount, bill.received_cents),
    }),
  ];
}

/**
 * What goes back of the money a bill holds: one entry of `kind` per method it
 * is held in, in the mover's drawer, or split over the drawers that took it.
 */
function givingBack(doc: MoneyDoc, kind: LedgerKind, mover: Mover, reason: string | null): LedgerEntryDoc[] {
  const held = heldByMethod(doc);
  if (!mover.backFromTakers)
    return held.map(([method, cents]) => entry(mover, { kind, amount_cents: cents, method, reason }));
  return backToDrawers(held, moneyOf(doc).ledger, mover.drawer).map((part) => entry(mover, { kind, reason, ...part }));
}

/**
 * A PUT: Pending to Paid records a payment of what is due (in the bill's
 * method after the PUT); Paid to Pending, the reversal of what the bill holds
 * (it is owed again); a new payment_method on a bill whose money is all in its
 * old method moves it to the new one (a reversal and a payment), so that the
 * drawer agrees with the bill (money taken in another method stays where it
 * is). Anything else moves nothing.
 */
export function entriesOnUpdate(doc: BillDoc, changes: BillChanges, mover: Mover): LedgerEntryDoc[] {
  const status = changes.payment_status ?? doc.payment_status;
  const method = changes.payment_method ?? doc.payment_method;
  const money = moneyOf(doc);
  let entries: LedgerEntryDoc[] = [];
  if (doc.payment_status === 'Pending' && status === 'Paid' && money.due > 0) {
    const received = changes.received_cents === undefined ? doc.received_cents : changes.received_cents;
    entries = [
      entry(mover, { kind: 'payment', amount_cents: money.due, method, ...cashOf(method, money.due, received) }),
    ];
  } else if (doc.payment_status === 'Paid' && status === 'Pending') {
    entries = givingBack(doc, 'reversal', mover, LEDGER_MESSAGES.setBackToPending);
  } else if (method !== doc.payment_method) {
    const held = heldByMethod(doc);
    const [only] = held;
    if (held.length === 1 && only && only[0] === doc.payment_method) {
      entries = [
        entry(mover, {
          kind: 'reversal',
          amount_cents: only[1],
          method: only[0],
          reason: LEDGER_MESSAGES.methodChanged(method),
        }),
        entry(mover, { kind: 'payment', amount_cents: only[1], method }),
      ];
    }
  }
  // No cap here: the spec lets a client set payment_status and payment_method at any time while the bill is active.
  return entries;
}

/** A cancellation gives back everything the bill holds, with the cancellation's reason. */
export function entriesOnCancel(doc: MoneyDoc, reason: string | null, mover: Mover): LedgerEntryDoc[] {
  return givingBack(doc, 'refund', mover, reason ?? LEDGER_MESSAGES.cancelled);
}

/** The bill's money fields once these entries are added; a payment or a refund sets the status the balance says. */
export function withEntries(
  doc: MoneyDoc,
  entries: LedgerEntryDoc[],
): Required<Pick<MoneyDoc, 'paid_cents' | 'refunded_cents' | 'ledger'>> {
  const money = moneyOf(doc);
  let { paid, refunded } = money;
  for (const e of entries) {
    if (e.kind === 'payment') paid += e.amount_cents;
    else if (e.kind === 'reversal') paid -= e.amount_cents;
    else refunded += e.amount_cents;
  }
  return { paid_cents: paid, refunded_cents: refunded, ledger: [...money.ledger, ...entries] };
}

/** After a payment through the new route: Paid once nothing is due, else Pending. */
export function statusAfterPayment(doc: BillDoc, entries: LedgerEntryDoc[]): PaymentStatus {
  const paid = withEntries(doc, entries).paid_cents!;
  return paid >= doc.grand_total_cents ? 'Paid' : 'Pending';
}

/** The change of a PUT: its fields, the money it moves, and the cash fields of a bill that is no longer Cash (unless given). */
export function planUpdate(doc: BillDoc, changes: BillChanges, mover: Mover): BillChange {
  const entries = entriesOnUpdate(doc, changes, mover);
  const set: Partial<BillDoc> = { ...changes, ...(entries.length > 0 ? withEntries(doc, entries) : {}) };
  if (doc.payment_method === 'Cash' && (changes.payment_method ?? 'Cash') !== 'Cash') {
    if (changes.received_cents === undefined) set.received_cents = null;
    if (changes.balance_cents === undefined) set.balance_cents = null;
  }
  return { set, entries, dated: true };
}

/** The change of a cancellation: what the bill holds goes back. */
export function planCancel(doc: BillDoc, reason: string | null, mover: Mover): BillChange {
  const entries = entriesOnCancel(doc, reason, mover);
  return { set: entries.length > 0 ? withEntries(doc, entries) : {}, entries, dated: true };
}

/** The change of a payment or a refund through its own route. */
export function planEntry(doc: BillDoc, entry: LedgerEntryDoc): BillChange {
  const entries = [entry];
  const set: Partial<BillDoc> = withEntries(doc, entries);
  if (entry.kind === 'payment') set.payment_status = statusAfterPayment(doc, entries);
  return { set, entries, dated: false };
}

/** A bill's money: payments less reversals, refunds, what is due and what it holds, and its entries. */
export interface BillMoney {
  paid: Cents;
  refunded: Cents;
  /** The grand total less what was paid, never below 0. */
  due: Cents;
  /** What was paid and not given back: what a refund may take at most. */
  held: Cents;
  ledger: LedgerEntryDoc[];
}

/**
 * The money of a bill document. Bills stored before the ledger existed (and
 * bills imported in bulk) hold no entries: a Paid one was paid its total, in
 * its payment method, before the ledger began.
 */
export function moneyOf(
  doc: Pick<MoneyDoc, 'paid_cents' | 'refunded_cents' | 'ledger' | 'payment_status' | 'grand_total_cents'>,
): BillMoney {
  const paid = doc.paid_cents ?? (doc.payment_status === 'Paid' ? doc.grand_total_cents : 0);
  const refunded = doc.refunded_cents ?? 0;
  return {
    paid,
    refunded,
    due: Math.max(0, doc.grand_total_cents - paid),
    held: paid - refunded,
    ledger: doc.ledger ?? [],
  };
}
