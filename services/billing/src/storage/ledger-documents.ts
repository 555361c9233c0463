/**
 * bill_ledger's documents: a drawer entry of each ledger entry (domain/ledger-entry.ts),
 * for the drawer's queries by branch and day, stored through the outbox with its event.
 */
import type { PaymentMethod } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { CarriedDoc } from '@clinic/service-kit/storage';
import type { DrawerKind } from '../domain/drawer';
import type { LedgerEntryDoc } from '../domain/ledger-entry';

export const BILL_LEDGER = 'bill_ledger';

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
  /** Channeling: the doctor's and the hospital's parts of the amount (domain/fee-shares.ts); a payout is the doctor's. */
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
