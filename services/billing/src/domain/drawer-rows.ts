/** The drawer's sums of one branch and day, as the drawer ledger groups them. */
import type { PaymentMethod } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import type { DrawerKind } from './drawer';

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
