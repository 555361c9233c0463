/** The drawer ledger: an entry per money move, and its sums of one branch and day as the drawer groups them. */
import type { PaymentMethod } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { DrawerKind } from './drawer';

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

/** A branch's money of one day taken, given back or paid out by one user, in one method, of one kind. */
export interface DrawerRow {
  collector: number | string;
  method: PaymentMethod;
  kind: DrawerKind;
  amount_cents: Cents;
}

/** A branch's channeling money of one day, of one kind: its doctor's and hospital's parts. */
export interface ChannelingRow {
  kind: DrawerKind;
  doctor_cents: Cents;
  hospital_cents: Cents;
}
