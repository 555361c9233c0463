/**
 * The day-end report printed on A4, for the branch's file and the cashiers'
 * signatures: the JSON report's figures, laid out as a manager reads them,
 * the money given back that day with its reasons, and the day's close.
 * Pure rendering.
 */
import { toCents } from '@clinic/service-kit';
import type { DayEndReport } from '../day-end-view';
import type { LetterheadLines } from '../../domain/letterhead';
import { layOutClosing } from './day-end-closing';
import type { PaperFonts } from './fonts';
import { layOutCashOffice, layOutTenders } from './day-end-cash-office';
import { layOutLetterhead } from './letterhead';
import { MM, renderPdf, type PageWriter } from './page-writer';
import { columns, table } from './tables';
import { formatAmount } from './receipt';

export interface DayEndPrint {
  letterhead: LetterheadLines;
  report: DayEndReport;
  printedAt: string;
  printedBy: string;
  /** A user's name, or how the API shows a user it has no name of. */
  nameOf: (user: number | string) => string;
}

const A4 = { width: 210 * MM, height: 297 * MM, margin: 15 * MM, fontSize: 9, titleSize: 15 };

const amount = (value: number) => formatAmount(toCents(value));

function layOut(w: PageWriter, print: DayEndPrint): void {
  const { report } = print;
  w.onNewPage = () => w.pair(`${print.letterhead.title}: day-end ${report.date} (continued)`, '');
  layOutLetterhead(w, print.letterhead, { title: A4.titleSize, text: A4.fontSize, logo: 20 * MM });
  w.centered(`Day-end report of ${report.date}`, { bold: true, size: 11 });
  w.pair(`Printed ${print.printedAt} by ${print.printedBy}`, `Branch ${report.store_id}`);
  w.rule();

  const t = report.totals;
  const totals = columns([0.4, 0.3, 0.3]);
  table(
    w,
    'Totals',
    totals(['', 'Bills', 'Amount']),
    [
      totals(['All live bills', String(t.total_bills), amount(t.total_revenue)]),
      totals(['Paid', String(t.paid_count), amount(t.paid_revenue)]),
      totals(['Pending', String(t.pending_count), amount(t.pending_revenue)]),
      totals(['Subtotal before discounts', '', amount(t.total_subtotal)]),
      totals(['Discounts', '', amount(t.total_discounts)]),
      ...(report.owed
        ? [totals(['Still owed on bills of the date', String(report.owed.bill_count), amount(report.owed.due_amount)])]
        : []),
      totals(['Money taken that day', '', amount(report.net.collected)]),
      totals(['Given back that day', String(report.refunds.length), amount(report.net.given_back)]),
      totals(['Net taken that day', '', amount(report.net.net)]),
    ],
    '',
  );
  // Per tender from the ledger: the bills' own payment_method would disagree with the drawer on split tenders.
  layOutTenders(w, report);
  const cashier = columns([0.4, 0.15, 0.15, 0.3]);
  table(
    w,
    'Bills per cashier',
    cashier(['Billed by', 'Bills', 'Paid', 'Amount']),
    report.cashiers.map((c) =>
      cashier([
        c.billed_by_name ?? (c.billed_by === null ? '-' : `User ${c.billed_by}`),
        String(c.bill_count),
        String(c.payment_statuses.Paid?.count ?? 0),
        amount(c.grand_total),
      ]),
    ),
    'No bills.',
  );
  layOutDrawer(w, report);
  layOutChanneling(w, report);
  layOutCashOffice(w, report, print.nameOf);
  const cancelled = columns([0.22, 0.15, 0.2, 0.43], [2, 3]);
  table(
    w,
    `Cancelled bills (${report.cancelled.count}, ${amount(report.cancelled.grand_total)})`,
    cancelled(['Bill', 'Amount', 'Cancelled by', 'Reason']),
    report.cancelled.bills.map((b) =>
      cancelled([
        b.bill_number,
        amount(b.grand_total),
        b.cancelled_by ? print.nameOf(b.cancelled_by.sub) : '-',
        b.reason ?? '-',
      ]),
    ),
    'None.',
  );
  const back = columns([0.2, 0.1, 0.1, 0.13, 0.17, 0.3], [4, 5]);
  table(
    w,
    'Refunds and reversals of the day',
    back(['Bill', 'At', 'Method', 'Amount', 'By', 'Reason']),
    report.refunds.map((g) =>
      back([
        g.bill_number ?? (g.appointment_id === null ? String(g.bill_id) : `Appointment ${g.appointment_id}`),
        g.at.slice(11),
        g.method,
        amount(g.amount),
        g.by_name ?? print.nameOf(g.by),
        g.reason ?? g.kind,
      ]).map((cell, i) => (i === 5 ? { ...cell, align: 'left' as const } : cell)),
    ),
    'None.',
  );
  layOutClosing(w, report.closing, print.nameOf, ['Cashier', 'Checked by', 'Manager']);
}

/** The drawer per user; a "Paid out" column (doctors' payouts) only on a day someone paid one. */
function layOutDrawer(w: PageWriter, report: DayEndReport): void {
  const rows = report.drawer ?? [];
  const paysOut = rows.some((d) => d.paid_out);
  const drawer = paysOut
    ? columns([0.2, 0.11, 0.11, 0.11, 0.11, 0.13, 0.11, 0.12])
    : columns([0.22, 0.13, 0.13, 0.13, 0.13, 0.13, 0.13]);
  const paidOut = (d: (typeof rows)[number]) => (paysOut ? [amount(d.paid_out?.Cash ?? 0)] : []);
  table(
    w,
    'The drawer: money taken and given back that day, per user',
    drawer([
      'User',
      'Cash in',
      'Card in',
      'Online in',
      'Cash out',
      'Card+Online out',
      ...(paysOut ? ['Cash paid out'] : []),
      'Cash in drawer',
    ]),
    rows.map((d) =>
      drawer([
        d.user_name ?? String(d.user_id),
        amount(d.collected.Cash!),
        amount(d.collected.Card!),
        amount(d.collected.Online!),
        amount(d.refunded.Cash!),
        amount(d.refunded.Card! + d.refunded.Online!),
        ...paidOut(d),
        amount(d.cash_in_drawer),
      ]),
    ),
    'No money moved.',
  );
}

/** Channeling's money of the day: the doctor's and the hospital's shares, and the doctors' payouts. */
function layOutChanneling(w: PageWriter, report: DayEndReport): void {
  const c = report.channeling;
  if (!c) return;
  const row = columns([0.4, 0.2, 0.2, 0.2]);
  table(
    w,
    "Channeling: appointments' fees and doctors' payouts",
    row(['', "Doctor's share", 'Hospital share', 'Total']),
    [
      row(['Taken', amount(c.taken.doctor_share), amount(c.taken.hospital_share), amount(c.taken.total)]),
      row(['Given back', amount(c.refunded.doctor_share), amount(c.refunded.hospital_share), amount(c.refunded.total)]),
      row(['Paid out to doctors', amount(c.paid_out_to_doctors), '', amount(c.paid_out_to_doctors)]),
    ],
    '',
  );
}

export function renderDayEnd(fonts: PaperFonts, print: DayEndPrint): Promise<Buffer> {
  const info = { Title: `Day-end ${print.report.date}`, Subject: `Day-end report of ${print.letterhead.title}` };
  return renderPdf(fonts, A4, info, (w) => layOut(w, print));
}
