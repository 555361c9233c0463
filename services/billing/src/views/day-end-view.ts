/** The day-end report as JSON answers it and the A4 print shows it. */
import type { PaymentMethod } from '@clinic/contracts';
import { fromCents, type Cents, type ClinicClock } from '@clinic/service-kit';
import type { AuditEntryDoc } from '@clinic/service-kit/storage';
import type { CancelledBill } from '../domain/bill';
import { channelingOf } from '../domain/channeling-day';
import { cashiersOf, drawerOf } from '../domain/day-end-report';
import type { DrawerKind } from '../domain/drawer';
import type { ChannelingRow, DrawerRow } from '../domain/drawer-rows';
import { summarize, type CashierGroup } from '../domain/summary-rules';
import type { DayEndClosing } from './closing-view';
import type { CashOfficeDayEndView } from './day-end-cash-office';

/** What the day's queries found. */
export interface DayEndFacts {
  store_id: number;
  date: string;
  groups: CashierGroup[];
  cancelledBills: CancelledBill[];
  cancellations: Map<number, AuditEntryDoc>;
  drawerRows: DrawerRow[];
  owed: { bill_count: number; due: Cents };
  channelingRows: ChannelingRow[];
  names: Map<number, string>;
}

/** Money given back that day, with its bill's number (or appointment) and reason. */
export interface DayEndRefund {
  id: string;
  bill_id: number | null;
  bill_number: string | null;
  appointment_id: number | null;
  kind: DrawerKind;
  method: PaymentMethod;
  amount: number;
  at: string;
  by: number | string;
  by_name: string | null;
  reason: string | null;
}

/** The day's money taken, given back, and net. */
export interface DayNet {
  collected: number;
  given_back: number;
  net: number;
}

/** The sections the cash office and the day's close add. */
export interface DayEndSections {
  refunds: DayEndRefund[];
  net: DayNet;
  closing: DayEndClosing;
  cashOffice: CashOfficeDayEndView;
}

export function dayEndView(facts: DayEndFacts, sections: DayEndSections, clock: ClinicClock) {
  const { store_id, date, groups, cancelledBills, cancellations, drawerRows, owed, channelingRows, names } = facts;
  const { refunds, net, closing, cashOffice } = sections;
  const channeling = channelingOf(channelingRows);
  const totals = summarize(groups);
  const revenueOf = (status: string) =>
    fromCents(groups.filter((g) => g.payment_status === status).reduce((sum, g) => sum + g.grand_total, 0));
  return {
    store_id,
    date,
    cashiers: cashiersOf(groups, names),
    totals: { ...totals, paid_revenue: revenueOf('Paid'), pending_revenue: revenueOf('Pending') },
    // Present once someone moved money that day, or a bill of the date owes some.
    ...(drawerRows.length > 0 ? { drawer: drawerOf(drawerRows, names) } : {}),
    ...(owed.bill_count > 0 ? { owed: { bill_count: owed.bill_count, due_amount: fromCents(owed.due) } } : {}),
    // Present once channeling money moved in the branch that day.
    ...(channeling ? { channeling } : {}),
    // What went back that day, the money net of it, and whether the day is closed.
    refunds,
    net,
    closing,
    // Per tender from the ledger, the day's shifts, the approvals asked for.
    ...cashOffice,
    cancelled: {
      count: cancelledBills.length,
      grand_total: fromCents(cancelledBills.reduce((sum, b) => sum + b.grand_total_cents, 0)),
      bills: cancelledBills.map((bill) => {
        const entry = cancellations.get(bill.id);
        return {
          id: bill.id,
          bill_number: bill.bill_number,
          grand_total: fromCents(bill.grand_total_cents),
          billed_by: bill.billed_by,
          cancelled_at: clock.timestamp(entry?.at ?? bill.updated_at),
          cancelled_by: entry?.by ?? null,
          reason: entry?.reason ?? null,
        };
      }),
    },
  };
}

export type DayEndReport = ReturnType<typeof dayEndView>;
