import { cashCounts, drawerOf, userKey } from '../src/domain/day-end-report';
import type { DrawerRow } from '../src/domain/drawer-rows';

const row = (collector: number | string, method: DrawerRow['method'], kind: DrawerRow['kind'], amount_cents: number) =>
  ({ collector, method, kind, amount_cents }) as DrawerRow;
/** A user's line of the drawer, amounts per method in the order Cash, Card, Online. */
const drawerLine = (
  user_id: number | string,
  user_name: string | null,
  [Cash, Card, Online]: number[],
  [cashBack, cardBack, onlineBack]: number[],
  cash_in_drawer: number,
) => ({
  user_id,
  user_name,
  collected: { Cash, Card, Online },
  refunded: { Cash: cashBack, Card: cardBack, Online: onlineBack },
  cash_in_drawer,
});
const names = new Map([
  [7, 'Kasun Silva'],
  [8, 'Dilani Perera'],
]);

describe('userKey: one form of a user id, whether a token or a count names it as text or integer', () => {
  it.each([
    [7, 7],
    ['7', 7],
    ['-3', -3],
    ['0', 0],
    ['07', '07'],
    ['7.0', '7.0'],
    ['+7', '+7'],
    [' 7', ' 7'],
    ['nurse-ann', 'nurse-ann'],
    ['90071992547409930', '90071992547409930'],
  ])('%p is %p', (id, key) => {
    expect(userKey(id)).toBe(key);
  });
});

describe('drawerOf', () => {
  it('per user: collected and given back per method, and the cash in the drawer', () => {
    const rows = [
      row(8, 'Cash', 'payment', 100_000),
      row(7, 'Cash', 'payment', 85_000),
      row(7, 'Card', 'payment', 20_000),
      row(7, 'Cash', 'refund', 5_000),
      row(7, 'Card', 'reversal', 20_000),
      row('nurse-ann', 'Online', 'payment', 1_000),
    ];
    expect(drawerOf(rows, names)).toEqual([
      drawerLine(7, 'Kasun Silva', [850, 200, 0], [50, 200, 0], 800),
      drawerLine(8, 'Dilani Perera', [1000, 0, 0], [0, 0, 0], 1000),
      drawerLine('nurse-ann', null, [0, 0, 10], [0, 0, 0], 0),
    ]);
  });

  it('counts money taken under the sub "7" and under 7 as one user’s', () => {
    const drawer = drawerOf([row(7, 'Cash', 'payment', 1_000), row('7', 'Cash', 'payment', 2_000)], names);
    expect(drawer).toEqual([expect.objectContaining({ user_id: 7, user_name: 'Kasun Silva', cash_in_drawer: 30 })]);
  });
});

describe('cashCounts', () => {
  it('every user of the day and every user counted: expected against counted, in user order', () => {
    const rows = [row(8, 'Cash', 'payment', 10_000), row(7, 'Cash', 'payment', 5_000), row(7, 'Card', 'payment', 999)];
    const counted = new Map<number | string, number>([
      ['zz', 100],
      [7, 4_000],
    ]);
    expect(cashCounts(rows, counted)).toEqual([
      { user_id: 7, expected_cents: 5_000, counted_cents: 4_000 },
      { user_id: 8, expected_cents: 10_000, counted_cents: null },
      { user_id: 'zz', expected_cents: 0, counted_cents: 100 },
    ]);
  });

  it('matches cash counted for "7" with the cash user 7 took: one row, not two', () => {
    const counted = new Map<number | string, number>([['7', 1_000]]);
    expect(cashCounts([row(7, 'Cash', 'payment', 1_000)], counted)).toEqual([
      { user_id: 7, expected_cents: 1_000, counted_cents: 1_000 },
    ]);
    expect(cashCounts([row('7', 'Cash', 'payment', 500)], new Map([[7, 500]]))).toEqual([
      { user_id: 7, expected_cents: 500, counted_cents: 500 },
    ]);
  });
});
