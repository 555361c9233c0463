/**
 * What the day-end report says of the money given back and of the day's
 * close: every refund and reversal of the day with its bill and
 * reason, the day's money net of them, and the closing as GET
 * /lab_bills/day_close answers it. JSON and the printed day-end show the same.
 */
import { fromCents, type ClinicClock } from '@clinic/service-kit';
import { netOfDay } from '../domain/day-net';
import type { BillingReferences } from '../references';
import type { BillStorage } from '../storage';
import type { DrawerRow } from '../domain/drawer-rows';
import { closingUsers, closingView, openDayView, type DayEndClosing } from '../views/closing-view';
import type { DayEndRefund, DayNet } from '../views/day-end-view';

export class DayEndClosingFacts {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly clock: ClinicClock,
  ) {}

  /** The money given back in the branch that day, oldest first, each with its bill's number (or appointment) and reason. */
  async refunds(branchId: number, date: string): Promise<DayEndRefund[]> {
    const drawerEntries = await this.storage.ledger.givenBack(branchId, date);
    const billIds = drawerEntries.flatMap((r) => (r.bill_id === undefined ? [] : [r.bill_id]));
    const [bills, accounts, names] = await Promise.all([
      this.storage.ledgerExport.billsOf(billIds),
      this.storage.channeling.accounts.findMany(drawerEntries.flatMap((r) => r.appointment_id ?? [])),
      this.refs.userNames(drawerEntries.map((r) => r.collector)),
    ]);
    return drawerEntries.map((drawerEntry) => {
      const bill = drawerEntry.bill_id === undefined ? undefined : bills.get(drawerEntry.bill_id);
      const account = drawerEntry.appointment_id === undefined ? undefined : accounts.get(drawerEntry.appointment_id);
      const entry = (bill?.ledger ?? account?.ledger)?.find((e) => e.id === drawerEntry._id);
      const by = drawerEntry.collector;
      return {
        id: drawerEntry._id,
        bill_id: drawerEntry.bill_id ?? null,
        bill_number: bill?.bill_number ?? null,
        appointment_id: drawerEntry.appointment_id ?? null,
        kind: drawerEntry.kind,
        method: drawerEntry.method,
        amount: fromCents(drawerEntry.amount_cents),
        at: this.clock.timestamp(drawerEntry.at) as string,
        by,
        by_name: typeof by === 'number' ? (names.get(by) ?? null) : null,
        reason: entry?.reason ?? null,
      };
    });
  }

  /** The day's money taken, given back, and net, by the day it moved. */
  net(rows: DrawerRow[]): DayNet {
    const { collected, givenBack, net } = netOfDay(rows);
    return { collected: fromCents(collected), given_back: fromCents(givenBack), net: fromCents(net) };
  }

  async closing(branchId: number, date: string): Promise<DayEndClosing> {
    const found = await this.storage.closings.find(branchId, date);
    if (!found) return openDayView(branchId, date);
    return closingView(found, await this.refs.userNames(closingUsers(found)), this.clock);
  }
}
