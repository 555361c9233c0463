/**
 * The day-end's channeling money: the doctor's and the hospital's
 * shares taken and given back in the branch that day, and what was paid out
 * to doctors, from the parts each drawer entry of an appointment records
 * (fee-shares.ts). Pure arithmetic over the grouped drawer entries.
 */
import { fromCents, type Cents } from '@clinic/service-kit';
import type { ChannelingRow } from './drawer-rows';
import type { DrawerKind } from './drawer';

const sumOf = (rows: ChannelingRow[], kinds: DrawerKind[], part: 'doctor_cents' | 'hospital_cents'): Cents =>
  rows.filter((row) => kinds.includes(row.kind)).reduce((sum, row) => sum + row[part], 0);

/** The day's channeling figures; null when no channeling money moved in the branch that day. */
export function channelingOf(rows: ChannelingRow[]) {
  const moved = (kinds: DrawerKind[]) => ({
    doctor_share: sumOf(rows, kinds, 'doctor_cents'),
    hospital_share: sumOf(rows, kinds, 'hospital_cents'),
  });
  const taken = moved(['payment']);
  const refunded = moved(['refund', 'reversal']);
  const paidOut = sumOf(rows, ['payout'], 'doctor_cents');
  const reversed = sumOf(rows, ['payout_reversal'], 'doctor_cents');
  const figures = [taken.doctor_share, taken.hospital_share, refunded.doctor_share, refunded.hospital_share];
  if ([...figures, paidOut, reversed].every((cents) => cents === 0)) return null;
  const view = (m: typeof taken) => ({
    doctor_share: fromCents(m.doctor_share),
    hospital_share: fromCents(m.hospital_share),
    total: fromCents(m.doctor_share + m.hospital_share),
  });
  return {
    taken: view(taken),
    refunded: view(refunded),
    /** Payouts to doctors less those given back into a drawer (reversals), that day. */
    paid_out_to_doctors: fromCents(paidOut - reversed),
    payouts_reversed: fromCents(reversed),
  };
}
