/**
 * The cash office on the printed day-end: per tender from the
 * ledger, the shifts with their floats, drops, counts and over/short, and
 * the approvals of the day. Pure rendering.
 */
import { PAYMENT_METHODS } from '@clinic/contracts';
import { toCents } from '@clinic/service-kit';
import type { PageWriter } from './page-writer';
import { formatAmount } from './receipt';
import { columns, table } from './tables';
import type { CashOfficeDayEndView } from '../day-end-cash-office';

const amount = (value: number) => formatAmount(toCents(value));
const signed = (value: number | null) => (value === null ? '-' : `${value > 0 ? '+' : ''}${amount(value)}`);

/** What moved per tender that day, from the ledger: every cash figure of the page agrees with it. */
export function layOutTenders(w: PageWriter, report: CashOfficeDayEndView): void {
  const row = columns([0.2, 0.16, 0.16, 0.16, 0.16, 0.16]);
  const tenders = report.tenders;
  table(
    w,
    'Per tender, from the ledger (money taken and given back that day)',
    row(['Tender', 'Taken', 'Given back', 'Paid out', 'Dropped', 'Net']),
    tenders
      ? PAYMENT_METHODS.map((m) => {
          const t = tenders[m];
          return row([m, amount(t.taken), amount(t.given_back), amount(t.paid_out), amount(t.dropped), amount(t.net)]);
        })
      : [],
    'No money moved.',
  );
}

/** The shifts and the approvals of the day, when there were any. */
export function layOutCashOffice(
  w: PageWriter,
  report: CashOfficeDayEndView,
  nameOf: (user: number | string) => string,
): void {
  const shifts = report.shifts ?? [];
  if (shifts.length > 0) {
    const row = columns([0.2, 0.09, 0.09, 0.09, 0.09, 0.09, 0.1, 0.1, 0.15], [0]);
    table(
      w,
      'Shifts: the drawers from float to count',
      row(['Shift', 'Float', 'Cash in', 'Cash out', 'Dropped', 'Paid out', 'Expected', 'Counted', 'Over/short']),
      shifts.map((s) =>
        row([
          `#${s.id} ${s.user_name ?? nameOf(s.user_id)}${s.handed_to ? ` to ${nameOf(s.handed_to)}` : ''}`,
          amount(s.float),
          amount(s.taken.Cash),
          amount(s.given_back.Cash + s.paid_to_doctors),
          amount(s.dropped),
          amount(s.paid_out),
          amount(s.expected),
          s.counted === null ? s.status : amount(s.counted),
          signed(s.difference),
        ]),
      ),
      '',
    );
    const signedOff = shifts.filter((s) => s.signed_off_by);
    if (signedOff.length > 0)
      w.paragraph(`Signed off: ${signedOff.map((s) => `#${s.id} by ${nameOf(s.signed_off_by!.sub)}`).join(', ')}`);
  }
  const exceptions = report.exceptions ?? [];
  if (exceptions.length > 0) {
    const row = columns([0.2, 0.14, 0.14, 0.12, 0.26, 0.14], [1, 2, 3, 4, 5]);
    const who = (actor: { sub: number | string; user_name: string | null } | null) =>
      actor ? (actor.user_name ?? nameOf(actor.sub)) : '-';
    table(
      w,
      'Approvals (exceptions to the controls)',
      row(['Rules', 'Asked by', 'Approved by', 'Status', 'Reason', 'Used on']),
      exceptions.map((e) =>
        row([e.rules.join(', '), who(e.requested_by), who(e.approved_by), e.status, e.reason, e.used_on ?? '-']),
      ),
      '',
    );
  }
}
