/**
 * GET /lab_bills/day_end: a branch's bills of one date per cashier, its
 * totals (the summary's figures, from the same bills), the drawer, and the
 * bills of the date that were cancelled; as JSON, or printed on A4.
 */
import { success, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import { fromCents, requireBranch, type ClinicClock, type HandlerContext } from '@clinic/service-kit';
import { channelingOf } from '../domain/channeling-day';
import { DayEndClosingFacts } from './day-end-closing';
import { cashiersOf, drawerOf } from '../domain/day-end-report';
import { parseDayEndQuery } from '../domain/filters';
import { letterheadOf } from '../domain/letterhead';
import { renderDayEnd } from '../views/paper/day-end-pdf';
import type { PaperFonts } from '../views/paper/fonts';
import { pdfReply } from '../views/paper/pdf-reply';
import type { BillStorage } from '../storage';
import { summarize } from '../domain/summary-rules';
import type { BillingReferences } from '../references';
import type { CashOfficeSection } from './day-end-cash-office';

export type DayEndReport = Awaited<ReturnType<DayEndOperations['report']>>;

export class DayEndOperations {
  /** The refunds, the net and the closing (issue 44). */
  private readonly closingFacts: DayEndClosingFacts;

  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly clock: ClinicClock,
    private readonly fonts: PaperFonts,
    private readonly cashOffice: CashOfficeSection,
  ) {
    this.closingFacts = new DayEndClosingFacts(storage, refs, clock);
  }

  async dayEnd(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { store_id, date, format } = parseDayEndQuery(request.query);
    requireBranch(ctx, store_id);
    const report = await this.report(store_id, date);
    if (format === 'json') return success(200, { report });
    const printedBy = ctx.caller?.sub ?? '-';
    const [branch, names] = await Promise.all([
      this.refs.branch(store_id),
      this.refs.userNames([
        printedBy,
        report.closing.closed_by?.sub ?? null,
        ...report.cancelled.bills.map((b) => b.cancelled_by?.sub ?? null),
      ]),
    ]);
    const nameOf = (user: number | string) => (typeof user === 'number' ? (names.get(user) ?? `User ${user}`) : user);
    const pdf = await renderDayEnd(this.fonts, {
      letterhead: letterheadOf(branch, store_id),
      report,
      printedAt: this.clock.timestamp(new Date()) as string,
      printedBy: nameOf(printedBy),
      nameOf,
    });
    return pdfReply(`day-end-${store_id}-${date}.pdf`, pdf);
  }

  private async report(store_id: number, date: string) {
    const [groups, cancelledBills, drawerRows, owed, channelingRows, refunds, closing] = await Promise.all([
      this.storage.queries.cashierGroups(store_id, date),
      this.storage.queries.cancelledOn(store_id, date),
      this.storage.ledger.drawer(store_id, date),
      this.storage.queries.owedOn(store_id, date),
      this.storage.ledger.channeling(store_id, date),
      this.closingFacts.refunds(store_id, date),
      this.closingFacts.closing(store_id, date),
    ]);
    const channeling = channelingOf(channelingRows);
    const [cancellations, names, cashOffice] = await Promise.all([
      this.storage.history.latest(
        cancelledBills.map((b) => b.id),
        'cancelled',
      ),
      this.refs.userNames([...groups.map((g) => g.billed_by), ...drawerRows.map((r) => r.collector)]),
      this.cashOffice.of(store_id, date, drawerRows),
    ]);
    const totals = summarize(groups);
    const revenueOf = (status: string) =>
      fromCents(groups.filter((g) => g.payment_status === status).reduce((sum, g) => sum + g.grand_total, 0));
    return {
      store_id,
      date,
      cashiers: cashiersOf(groups, names),
      totals: { ...totals, paid_revenue: revenueOf('Paid'), pending_revenue: revenueOf('Pending') },
      // Issue 25: present once someone moved money that day, or a bill of the date owes some.
      ...(drawerRows.length > 0 ? { drawer: drawerOf(drawerRows, names) } : {}),
      ...(owed.bill_count > 0 ? { owed: { bill_count: owed.bill_count, due_amount: fromCents(owed.due) } } : {}),
      // Issue 42: present once channeling money moved in the branch that day.
      ...(channeling ? { channeling } : {}),
      // Issue 44: what went back that day, the money net of it, and whether the day is closed.
      refunds,
      net: this.closingFacts.net(drawerRows),
      closing,
      // Issue 43: per tender from the ledger, the day's shifts, the approvals asked for.
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
            cancelled_at: this.clock.timestamp(entry?.at ?? bill.updated_at),
            cancelled_by: entry?.by ?? null,
            reason: entry?.reason ?? null,
          };
        }),
      },
    };
  }
}
