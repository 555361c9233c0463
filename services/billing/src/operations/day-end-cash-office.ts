/**
 * The day-end's cash office section: tenders from the ledger, the
 * branch's shifts of the day and the approvals asked for; each part absent
 * when it holds nothing, so that a day without them reads as before.
 */
import type { ClinicClock } from '@clinic/service-kit';
import { shiftFigures } from '../domain/shift';
import type { BillingReferences } from '../references';
import type { BillStorage } from '../storage';
import type { DrawerRow } from '../domain/drawer-rows';
import { namedInApproval } from '../views/approval-view';
import { dayEndShiftView, exceptionView, tendersView, type CashOfficeDayEndView } from '../views/day-end-cash-office';
import { namedIn } from '../views/shift-view';

export class CashOfficeSection {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly clock: ClinicClock,
  ) {}

  /** The section of a branch's day, from the drawer rows the day-end read. */
  async of(storeId: number, date: string, drawer: readonly DrawerRow[]): Promise<CashOfficeDayEndView> {
    const { shifts, approvals, cash } = this.storage.cashOffice;
    const [dayShifts, asked] = await Promise.all([shifts.ofDay(storeId, date), approvals.ofDay(storeId, date)]);
    const [sums, names] = await Promise.all([
      Promise.all(dayShifts.map((shift) => cash.sums(shift.id))),
      this.refs.userNames([...dayShifts.flatMap(namedIn), ...asked.flatMap(namedInApproval)]),
    ]);
    return {
      ...(drawer.length > 0 ? { tenders: tendersView(drawer) } : {}),
      ...(dayShifts.length > 0
        ? {
            shifts: dayShifts.map((shift, i) =>
              dayEndShiftView(shift, shiftFigures(shift.float_cents, sums[i]!), names, this.clock),
            ),
          }
        : {}),
      // Oldest first, as the day went.
      ...(asked.length > 0 ? { exceptions: [...asked].reverse().map((a) => exceptionView(a, names, this.clock)) } : {}),
    };
  }
}
