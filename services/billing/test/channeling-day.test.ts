import { channelingOf } from '../src/domain/channeling-day';
import { cashCounts, drawerOf } from '../src/domain/day-end-report';
import type { ChannelingRow, DrawerRow } from '../src/domain/drawer-rows';

const row = (collector: number, method: DrawerRow['method'], kind: DrawerRow['kind'], amount_cents: number) =>
  ({ collector, method, kind, amount_cents }) as DrawerRow;
const shares = (kind: ChannelingRow['kind'], doctor_cents: number, hospital_cents: number): ChannelingRow => ({
  kind,
  doctor_cents,
  hospital_cents,
});

describe('the drawer with doctors’ payouts (issue 42)', () => {
  const rows = [
    row(7, 'Cash', 'payment', 300_000),
    row(7, 'Card', 'payment', 150_000),
    row(7, 'Cash', 'refund', 50_000),
    row(7, 'Cash', 'payout', 180_000),
    row(1, 'Cash', 'payout_reversal', 180_000),
    row(8, 'Cash', 'payment', 10_000),
  ];

  it('counts a payout as cash out and its reversal as cash back in, apart from refunds', () => {
    const [admin, kasun, dilani] = drawerOf(rows, new Map());
    expect(kasun).toMatchObject({
      user_id: 7,
      collected: { Cash: 3000, Card: 1500, Online: 0 },
      refunded: { Cash: 500, Card: 0, Online: 0 },
      paid_out: { Cash: 1800, Card: 0, Online: 0 },
      cash_in_drawer: 700,
    });
    // The reverser took the payout back into their drawer: it pays out less than nothing.
    expect(admin).toMatchObject({ user_id: 1, paid_out: { Cash: -1800 }, cash_in_drawer: 1800 });
    // A user who paid out nothing has no such figure (the day-end's drawer as before issue 42).
    expect(dilani).not.toHaveProperty('paid_out');
  });

  it('expects at the day close the cash less what was paid out', () => {
    expect(cashCounts(rows, new Map([[7, 70_000]]))).toEqual([
      { user_id: 1, expected_cents: 180_000, counted_cents: null },
      { user_id: 7, expected_cents: 70_000, counted_cents: 70_000 },
      { user_id: 8, expected_cents: 10_000, counted_cents: null },
    ]);
  });
});

describe('channelingOf: the day-end’s channeling money', () => {
  it('is absent on a day of bills alone (their entries carry no shares)', () => {
    expect(channelingOf([shares('payment', 0, 0), shares('refund', 0, 0)])).toBeNull();
    expect(channelingOf([])).toBeNull();
  });

  it('sums each share taken and given back, and what was paid out less payouts given back', () => {
    const report = channelingOf([
      shares('payment', 300_000, 150_000),
      shares('refund', 30_000, 50_000),
      shares('reversal', 0, 0),
      shares('payout', 270_000, 0),
      shares('payout_reversal', 100_000, 0),
    ]);
    expect(report).toEqual({
      taken: { doctor_share: 3000, hospital_share: 1500, total: 4500 },
      refunded: { doctor_share: 300, hospital_share: 500, total: 800 },
      paid_out_to_doctors: 1700,
      payouts_reversed: 1000,
    });
  });
});
