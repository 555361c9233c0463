/**
 * A bill's money as stored (issue 25): its ledger entries live on the bill,
 * the one document a change of it writes atomically (compare-and-set, see
 * RecordWriter), and bill_ledger keeps a drawer entry of each for the drawer's
 * queries by branch and day, stored through the outbox with its event.
 */
import type { Caller, LedgerKind, PaymentMethod, PaymentStatus } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { CarriedDoc } from '@clinic/service-kit/storage';
import type { DrawerKind, DrawerRef } from '../domain/drawer';

export const BILL_LEDGER = 'bill_ledger';

export interface LedgerEntryDoc {
  /** Also the id of its event (payment_recorded or refunded) and of its drawer entry in bill_ledger. */
  id: string;
  kind: LedgerKind;
  amount_cents: Cents;
  method: PaymentMethod;
  /** Cash payments: what the patient handed over, and the change given back. */
  received_cents: Cents | null;
  change_cents: Cents | null;
  reference: string | null;
  reason: string | null;
  item_id: number | null;
  /** The clinic's day the money moved (YYYY-MM-DD): the drawer it is counted in. */
  day: string;
  at: Date;
  by: Caller;
  /** The drawer the money moved in (absent on entries from before drawers were named: the mover's). */
  drawer?: DrawerRef;
  /** The caller-scoped Idempotency-Key of the request that recorded it, and that request's hash. */
  idempotency_key?: string;
  request_hash?: string;
}

/**
 * What holds money through a ledger of its own: a bill, an appointment's
 * account. The money rules (money-rules.ts) read no more of it than this.
 */
export interface MoneyDoc {
  grand_total_cents: Cents;
  /** What a refund may name by `item_id`, each at most its line total. */
  items: ReadonlyArray<{ id: number; line_total_cents: Cents }>;
  /** Payments less reversals, and refunds; absent on bills stored before the ledger. */
  paid_cents?: Cents;
  refunded_cents?: Cents;
  /** Oldest first: the authority on the document's money. */
  ledger?: LedgerEntryDoc[];
  /** Bills stored before the ledger: a Paid one was paid its total, in its method. */
  payment_status?: PaymentStatus;
  payment_method?: PaymentMethod;
}

export type { DrawerKind } from '../domain/drawer';

/** What bill_ledger keeps of an entry: what the drawer groups and sums, by branch and day. */
export interface DrawerEntryDoc {
  _id: string;
  /** A bill's money; absent on channeling's. */
  bill_id?: number;
  /** Channeling: an appointment's money, or a session's payout (session_id alone). */
  appointment_id?: number;
  session_id?: number;
  store_id: number;
  day: string;
  /** Whose drawer the money moved in: the staff user (or, unmapped, the token's sub). */
  collector: number | string;
  /** The shift whose drawer it is, with CASH_SHIFTS=on. */
  shift_id?: number;
  role: string;
  method: PaymentMethod;
  kind: DrawerKind;
  amount_cents: Cents;
  /** Channeling: the doctor's and the hospital's parts of the amount (fee-shares.ts); a payout is the doctor's. */
  doctor_cents?: Cents;
  hospital_cents?: Cents;
  at: Date;
}

/** What a drawer entry says besides the entry's own fields: whose money it is. */
type DrawerOwner = Omit<
  DrawerEntryDoc,
  '_id' | 'day' | 'collector' | 'role' | 'method' | 'kind' | 'amount_cents' | 'at' | 'shift_id'
>;

/** The drawer entry of a ledger entry (or a payout) in bill_ledger, stored with its event (see Outbox, CarriedDoc). */
export function drawerEntry(
  entry: Pick<LedgerEntryDoc, 'day' | 'by' | 'method' | 'amount_cents' | 'at' | 'drawer'> & { kind: DrawerKind },
  owner: DrawerOwner,
): CarriedDoc {
  const shift = entry.drawer?.shift_id;
  const doc: Omit<DrawerEntryDoc, '_id'> = {
    ...owner,
    ...(shift ? { shift_id: shift } : {}),
    day: entry.day,
    collector: entry.drawer?.user ?? entry.by.sub,
    role: entry.by.role,
    method: entry.method,
    kind: entry.kind,
    amount_cents: entry.amount_cents,
    at: entry.at,
  };
  return { collection: BILL_LEDGER, doc };
}

/** The drawer entry of a bill's ledger entry. */
export function drawerEntryOf(entry: LedgerEntryDoc, bill: { id: number; store_id: number }): CarriedDoc {
  return drawerEntry(entry, { bill_id: bill.id, store_id: bill.store_id });
}
