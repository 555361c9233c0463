/**
 * The day-end report's figures per cashier and per user's drawer, and a
 * closing's cash per user: pure arithmetic over the grouped bills and ledger
 * records of one date.
 */
import { PAYMENT_METHODS, PAYMENT_STATUSES, type CashOutcome } from '@clinic/contracts';
import { fromCents, nullableAmount, type Cents } from '@clinic/service-kit';
import { DRAWER_SIGN, userKey, type DrawerKind, type UserId } from './drawer';
import type { CashCountDoc } from './day-closing';
import type { DrawerRow } from './drawer-rows';
import type { CashierGroup } from './summary-rules';

/** Count and grand total of bills, in cents while they are summed. */
interface Tally {
  count: number;
  grand_total: number;
}

const tallyView = (t: Tally) => ({ count: t.count, grand_total: fromCents(t.grand_total) });

/** The day-end report's cashiers, by billed_by (bills without one last). */
export function cashiersOf(groups: CashierGroup[], names: Map<number, string>) {
  const byCashier = new Map<number | null, CashierGroup[]>();
  for (const group of groups) byCashier.set(group.billed_by, [...(byCashier.get(group.billed_by) ?? []), group]);
  const tally = (members: CashierGroup[]): Tally => ({
    count: members.reduce((n, g) => n + g.count, 0),
    grand_total: members.reduce((n, g) => n + g.grand_total, 0),
  });
  return [...byCashier]
    .sort(([a], [b]) => (a ?? Number.MAX_SAFE_INTEGER) - (b ?? Number.MAX_SAFE_INTEGER))
    .map(([billedBy, members]) => {
      const all = tally(members);
      return {
        billed_by: billedBy,
        billed_by_name: billedBy === null ? null : (names.get(billedBy) ?? null),
        bill_count: all.count,
        grand_total: fromCents(all.grand_total),
        payment_methods: Object.fromEntries(
          PAYMENT_METHODS.map((m) => [m, tallyView(tally(members.filter((g) => g.payment_method === m)))]),
        ),
        payment_statuses: Object.fromEntries(
          PAYMENT_STATUSES.map((s) => [s, tallyView(tally(members.filter((g) => g.payment_status === s)))]),
        ),
      };
    });
}

export { userKey };

/** Users in order: integer ids first, ascending, then the others as text. */
function byUser(a: UserId, b: UserId): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const nameOf = (names: Map<number, string>, userId: UserId) =>
  typeof userId === 'number' ? (names.get(userId) ?? null) : null;

/** Cash taken in less cash given back and paid out, per user (userKey), in cents. */
function cashPerUser(rows: DrawerRow[]): Map<UserId, Cents> {
  const cash = new Map<UserId, Cents>();
  for (const row of rows) {
    const sign = DRAWER_SIGN[row.kind];
    const user = userKey(row.collector);
    cash.set(user, (cash.get(user) ?? 0) + (row.method === 'Cash' ? sign * row.amount_cents : 0));
  }
  return cash;
}

/**
 * The day-end report's drawer: per user who took, gave back or paid out money
 * that day, what they collected and gave back (refunds and reversals) per
 * method, what they paid out to doctors (less payouts given back; only when
 * they did), and the cash that should be in their drawer.
 */
export function drawerOf(rows: DrawerRow[], names: Map<number, string>) {
  const cash = cashPerUser(rows);
  return [...cash.keys()].sort(byUser).map((userId) => {
    const mine = rows.filter((r) => userKey(r.collector) === userId);
    const per = (kinds: DrawerKind[], sign: (kind: DrawerKind) => number = () => 1) =>
      Object.fromEntries(
        PAYMENT_METHODS.map((m) => [
          m,
          fromCents(
            mine
              .filter((r) => r.method === m && kinds.includes(r.kind))
              .reduce((sum, r) => sum + sign(r.kind) * r.amount_cents, 0),
          ),
        ]),
      );
    const paysOut = mine.some((r) => ['payout', 'payout_reversal', 'petty_payout'].includes(r.kind));
    const drops = mine.some((r) => r.kind === 'drop');
    return {
      user_id: userId,
      user_name: nameOf(names, userId),
      collected: per(['payment']),
      refunded: per(['refund', 'reversal']),
      ...(paysOut
        ? { paid_out: per(['payout', 'payout_reversal', 'petty_payout'], (kind) => -DRAWER_SIGN[kind]) }
        : {}),
      ...(drops ? { dropped: per(['drop']) } : {}),
      cash_in_drawer: fromCents(cash.get(userId)!),
    };
  });
}

/** A closing's cash per user: what the ledger expects (every user of the day) against what was counted. */
export function cashCounts(rows: DrawerRow[], counted: Map<UserId, Cents>): CashCountDoc[] {
  const expected = cashPerUser(rows);
  const countedCash = new Map([...counted].map(([userId, cents]) => [userKey(userId), cents]));
  const users = [...new Set([...expected.keys(), ...countedCash.keys()])].sort(byUser);
  return users.map((userId) => ({
    user_id: userId,
    expected_cents: expected.get(userId) ?? 0,
    counted_cents: countedCash.get(userId) ?? null,
  }));
}

/** A user's cash at a closing, as the API shows it: over when more was counted than expected, short when less. */
export function cashView(count: CashCountDoc, names: Map<number, string>) {
  const difference = count.counted_cents === null ? null : count.counted_cents - count.expected_cents;
  const outcome: CashOutcome =
    difference === null ? 'not counted' : difference > 0 ? 'over' : difference < 0 ? 'short' : 'balanced';
  return {
    user_id: count.user_id,
    user_name: nameOf(names, count.user_id),
    expected: fromCents(count.expected_cents),
    counted: nullableAmount(count.counted_cents),
    difference: nullableAmount(difference),
    outcome,
  };
}
