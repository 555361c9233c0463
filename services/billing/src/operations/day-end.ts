/**
 * GET /lab_bills/day_end: a branch's bills of one date per cashier, its
 * totals (the summary's figures, from the same bills), the drawer, and the
 * bills of the date that were cancelled; as JSON, or printed on A4.
 */
import { success, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import { requireBranch, type ClinicClock, type HandlerContext } from '@clinic/service-kit';
import { DayEndClosingFacts } from './day-end-closing';
import { parseDayEndQuery } from '../domain/filters';
import { letterheadOf } from '../domain/letterhead';
import { renderDayEnd } from '../views/paper/day-end-pdf';
import type { PaperFonts } from '../views/paper/fonts';
import { pdfReply } from '../views/paper/pdf-reply';
import type { BillStorage } from '../storage';
import type { BillingReferences } from '../references';
import type { CashOfficeSection } from './day-end-cash-office';
import { dayEndView } from '../views/day-end-view';

export class DayEndOperations {
  /** The refunds, the net and the closing. */
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
    const [cancellations, names, cashOffice] = await Promise.all([
      this.storage.history.latest(
        cancelledBills.map((b) => b.id),
        'cancelled',
      ),
      this.refs.userNames([...groups.map((g) => g.billed_by), ...drawerRows.map((r) => r.collector)]),
      this.cashOffice.of(store_id, date, drawerRows),
    ]);
    return dayEndView(
      { store_id, date, groups, cancelledBills, cancellations, drawerRows, owed, channelingRows, names },
      { refunds, net: this.closingFacts.net(drawerRows), closing, cashOffice },
      this.clock,
    );
  }
}
