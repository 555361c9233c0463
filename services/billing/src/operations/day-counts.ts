/**
 * Whose cash a day's close counts: only known staff who handled
 * the branch's cash that day (a count for anybody else is refused, not shown
 * as "over"); with shifts on, each shift was counted at its close or
 * handover, and the day closes once none of its shifts is still open.
 */
import { DAY_MESSAGES, SHIFT_MESSAGES } from '@clinic/contracts';
import { badRequest, fail, type Cents } from '@clinic/service-kit';
import { userKey, type UserId } from '../domain/drawer';
import type { BillingReferences } from '../references';
import type { BillStorage } from '../storage';
import type { CashCountDoc } from '../domain/day-closing';
import type { CashOffice } from './cash-office';

export class DayCounters {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly office: CashOffice,
  ) {}

  /**
   * The cash counted per staff user (a subject names its user): each a known
   * staff user who moved money at the branch that day, else 400 naming the
   * entry. With shifts on counts come from the shifts, and none is taken here.
   */
  async known(storeId: number, date: string, counted: Map<UserId, Cents>): Promise<Map<UserId, Cents>> {
    if (counted.size === 0) return counted;
    if (this.office.shiftsOn) throw badRequest(SHIFT_MESSAGES.countsFromShifts, 'counted_cash');
    const movers = new Set((await this.storage.ledger.drawer(storeId, date)).map((row) => userKey(row.collector)));
    const known = new Map<UserId, Cents>();
    for (const [i, [user, cents]] of [...counted].entries()) {
      const staff = await this.refs.staffOf({ sub: user });
      const field = `counted_cash[${i}].user_id`;
      if (!staff?.known || !movers.has(staff.user_id)) throw badRequest(SHIFT_MESSAGES.unknownCounter(field), field);
      if (known.has(staff.user_id)) throw badRequest(DAY_MESSAGES.duplicateUser(staff.user_id), 'counted_cash');
      known.set(staff.user_id, cents);
    }
    return known;
  }

  /** The day's cash per cashier from its shifts' counts; 409 while a shift of the day (or before) is still open. */
  async fromShifts(storeId: number, date: string): Promise<CashCountDoc[]> {
    const { shifts } = this.storage.cashOffice;
    const live = await shifts.liveUpTo(storeId, date);
    if (live.length > 0)
      throw fail(
        'SHIFTS_LIVE',
        SHIFT_MESSAGES.shiftsLive(
          storeId,
          date,
          live.map((s) => s.id),
        ),
      );
    const perUser = new Map<number, CashCountDoc>();
    for (const shift of await shifts.ofDay(storeId, date)) {
      const count = shift.count;
      if (!count) continue;
      const sum = perUser.get(shift.user_id) ?? { user_id: shift.user_id, expected_cents: 0, counted_cents: 0 };
      sum.expected_cents += count.expected_cents;
      sum.counted_cents = (sum.counted_cents ?? 0) + count.counted_cents;
      perUser.set(shift.user_id, sum);
    }
    return [...perUser.values()].sort((a, b) => (a.user_id as number) - (b.user_id as number));
  }
}
