import { backToDrawers, cashOf, heldByDrawer, perMethod, type DrawerEntry } from '../src/domain/drawer';
import { drawerUserOf, userIdOf } from '../src/domain/staff';

const taken = (user: number | string, method: DrawerEntry['method'], cents: number, shift: number | null = null) =>
  ({ kind: 'payment', method, amount_cents: cents, by: { sub: 1 }, drawer: { user, shift_id: shift } }) as DrawerEntry;
const back = (user: number | string, method: DrawerEntry['method'], cents: number) =>
  ({ kind: 'refund', method, amount_cents: cents, by: { sub: 1 }, drawer: { user, shift_id: null } }) as DrawerEntry;

describe('drawers: whose money a document holds, and where money going back comes from', () => {
  it('sums what each drawer holds of one method, most first, leaving out those holding nothing', () => {
    const entries = [taken(8, 'Cash', 500), taken(7, 'Cash', 700), back(8, 'Cash', 500), taken(8, 'Card', 100)];
    expect(heldByDrawer(entries, 'Cash')).toEqual([[{ user: 7, shift_id: null }, 700]]);
    expect(heldByDrawer(entries, 'Card')).toEqual([[{ user: 8, shift_id: null }, 100]]);
  });

  it('names an entry from before drawers by its mover, one user whichever way the sub was written', () => {
    const legacy = { kind: 'payment', method: 'Cash', amount_cents: 300, by: { sub: '7' } } as DrawerEntry;
    expect(heldByDrawer([legacy, taken(7, 'Cash', 200)], 'Cash')).toEqual([[{ user: 7, shift_id: null }, 500]]);
  });

  it('gives a cancellation back from the cashier who took it, not from the admin who cancels', () => {
    const admin = { user: 1, shift_id: null };
    expect(backToDrawers([['Cash', 1200]], [taken(8, 'Cash', 1200)], admin)).toEqual([
      { method: 'Cash', amount_cents: 1200, drawer: { user: 8, shift_id: null } },
    ]);
  });

  it('splits money going back over the drawers that took it, and takes what none holds from the fallback', () => {
    const entries = [taken(7, 'Cash', 300), taken(8, 'Cash', 500, 4)];
    expect(backToDrawers([['Cash', 1000]], entries, { user: 1, shift_id: null })).toEqual([
      { method: 'Cash', amount_cents: 500, drawer: { user: 8, shift_id: 4 } },
      { method: 'Cash', amount_cents: 300, drawer: { user: 7, shift_id: null } },
      { method: 'Cash', amount_cents: 200, drawer: { user: 1, shift_id: null } },
    ]);
  });

  it("sums moves per method and counts a drawer's cash in and out", () => {
    const sums = [
      { kind: 'payment', method: 'Cash', amount_cents: 1000 },
      { kind: 'payment', method: 'Card', amount_cents: 400 },
      { kind: 'refund', method: 'Cash', amount_cents: 100 },
      { kind: 'drop', method: 'Cash', amount_cents: 300 },
      { kind: 'petty_payout', method: 'Cash', amount_cents: 50 },
      { kind: 'payout_reversal', method: 'Cash', amount_cents: 20 },
    ] as const;
    expect(perMethod(sums, ['payment'])).toEqual({ Cash: 1000, Card: 400, Online: 0 });
    expect(cashOf(sums)).toBe(1000 - 100 - 300 - 50 + 20);
  });

  it('maps a token subject to a user id only when it is one', () => {
    expect([userIdOf(7), userIdOf('7'), userIdOf('07'), userIdOf('auth0|a1'), userIdOf(0)]).toEqual([
      7,
      7,
      null,
      null,
      null,
    ]);
    expect(drawerUserOf({ user_id: 9, name: 'D', known: true }, 'auth0|a1')).toBe(9);
    expect(drawerUserOf(null, 'auth0|a1')).toBe('auth0|a1');
    expect(drawerUserOf(null, '7')).toBe(7);
  });
});
