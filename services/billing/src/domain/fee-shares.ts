/**
 * An appointment's fee in its two shares (FEE_PARTS): the doctor's, item 1
 * of its account, and the hospital's, item 2. What the ledger holds of each:
 * payments fill the doctor's share first, then the hospital's (the doctor is
 * paid what the patient paid towards them); a refund of an item comes out of
 * that share; a refund of no item out of the hospital's share first, then the
 * doctor's (the clinic gives back its own part before the doctor's). Pure.
 */
import { FEE_PARTS, LEDGER_MESSAGES } from '@clinic/contracts';
import { badRequest, type Cents } from '@clinic/service-kit';
import type { LedgerEntryDoc } from './ledger-entry';

export interface Share {
  paid: Cents;
  refunded: Cents;
}

export interface FeeShares {
  doctor: Share;
  hospital: Share;
}

/** The fee split as the account was opened with it. */
export interface ShareFees {
  doctor: Cents;
  hospital: Cents;
}

/** What an entry moved of each share, in cents (what the drawer entry of a channeling entry records). */
export interface EntryShares {
  doctor_cents: Cents;
  hospital_cents: Cents;
}

const held = (share: Share) => share.paid - share.refunded;

/** The shares after one more entry. */
function afterEntry(fees: ShareFees, before: FeeShares, entry: LedgerEntryDoc): FeeShares {
  const doctor = { ...before.doctor };
  const hospital = { ...before.hospital };
  const amount = entry.amount_cents;
  if (entry.kind === 'payment') {
    const toDoctor = Math.max(0, Math.min(amount, fees.doctor - doctor.paid));
    doctor.paid += toDoctor;
    hospital.paid += amount - toDoctor;
  } else if (entry.kind === 'reversal') {
    // Undoes a payment: the share filled last is emptied first.
    const fromHospital = Math.min(amount, hospital.paid);
    hospital.paid -= fromHospital;
    doctor.paid -= amount - fromHospital;
  } else if (entry.item_id === FEE_PARTS.doctor) {
    doctor.refunded += amount;
  } else if (entry.item_id === FEE_PARTS.hospital) {
    hospital.refunded += amount;
  } else {
    const fromHospital = Math.max(0, Math.min(amount, held(hospital)));
    hospital.refunded += fromHospital;
    doctor.refunded += amount - fromHospital;
  }
  return { doctor, hospital };
}

const NOTHING: FeeShares = { doctor: { paid: 0, refunded: 0 }, hospital: { paid: 0, refunded: 0 } };

/** What a ledger, oldest first, holds of each share. */
export function sharesOf(fees: ShareFees, ledger: readonly LedgerEntryDoc[]): FeeShares {
  return ledger.reduce((shares, entry) => afterEntry(fees, shares, entry), NOTHING);
}

/** What `entries`, added after `ledger`, move of each share: each entry's own part. */
export function sharesOfEntries(
  fees: ShareFees,
  ledger: readonly LedgerEntryDoc[],
  entries: readonly LedgerEntryDoc[],
): EntryShares[] {
  let before = sharesOf(fees, ledger);
  return entries.map((entry) => {
    const after = afterEntry(fees, before, entry);
    // Positive, as the entry's amount is (a reversal lowers what was paid).
    const moved = (part: keyof FeeShares) =>
      Math.abs(after[part].paid - before[part].paid + (after[part].refunded - before[part].refunded));
    const own = { doctor_cents: moved('doctor'), hospital_cents: moved('hospital') };
    before = after;
    return own;
  });
}

/**
 * A refund of one share is at most what that share holds: "refund the doctor
 * fee only" never gives back the doctor's part of money the patient has not
 * paid towards it (a bill's item refund is capped by its line total alone).
 */
export function checkShareRefund(fees: ShareFees, ledger: readonly LedgerEntryDoc[], refund: LedgerEntryDoc): void {
  if (refund.item_id === null) return;
  const shares = sharesOf(fees, ledger);
  const share = refund.item_id === FEE_PARTS.doctor ? shares.doctor : shares.hospital;
  if (refund.amount_cents > held(share)) throw badRequest(LEDGER_MESSAGES.overItem(held(share)), 'amount');
}
