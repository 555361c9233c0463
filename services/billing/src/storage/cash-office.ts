/**
 * The cash office's storage: cashiers' shifts, the holds on their
 * drawers, and approvals. The drawer ledger (bill_ledger) and the closed days
 * are the bills' own, shared.
 */
import type { StorageDeps } from '@clinic/service-kit/storage';
import { Approvals } from './approvals';
import type { DayClosings } from './day-closings';
import { ShiftCash } from './shift-holds';
import { Shifts } from './shifts';

export class CashOfficeStorage {
  readonly shifts: Shifts;
  readonly cash: ShiftCash;
  readonly approvals: Approvals;

  constructor(deps: StorageDeps, closings: DayClosings) {
    this.shifts = new Shifts(deps.db, deps, closings);
    this.cash = new ShiftCash(deps.db, this.shifts);
    this.approvals = new Approvals(deps.db, deps);
  }
}
