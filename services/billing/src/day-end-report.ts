/** The day-end report's figures per cashier: pure arithmetic over the grouped bills of one date. */
import { PAYMENT_METHODS, PAYMENT_STATUSES } from '@clinic/contracts';
import { fromCents } from '@clinic/service-kit';
import type { CashierGroup } from './storage';

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
