/** A day's money net of what went back: payments taken less refunds and reversals, every method. Pure. */
import type { Cents } from '@clinic/service-kit';

export interface DayMoneyRow {
  kind: 'payment' | 'refund' | 'reversal' | 'payout' | 'payout_reversal' | 'drop' | 'petty_payout';
  amount_cents: Cents;
}

/**
 * Doctors' payouts are the channeling's own figures (and the drawer's), neither taken nor given back; nor are a
 * shift's cash drops to the safe and petty-cash payouts (the drawer's).
 */
export function netOfDay(rows: readonly DayMoneyRow[]): { collected: Cents; givenBack: Cents; net: Cents } {
  const sum = (kinds: DayMoneyRow['kind'][]) =>
    rows.filter((row) => kinds.includes(row.kind)).reduce((total, row) => total + row.amount_cents, 0);
  const collected = sum(['payment']);
  const givenBack = sum(['refund', 'reversal']);
  return { collected, givenBack, net: collected - givenBack };
}
