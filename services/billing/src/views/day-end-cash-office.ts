/**
 * What the cash office adds to the day-end: per tender from the
 * ledger (what was actually taken and given back, whatever the bills say, so
 * that every cash figure of the page agrees), the shifts of the day with
 * their floats, drops, counts and over/short, and the approvals asked for.
 */
import { PAYMENT_METHODS } from '@clinic/contracts';
import { fromCents, nullableAmount, type ClinicClock } from '@clinic/service-kit';
import type { Approval } from '../domain/approvals';
import { DRAWER_SIGN, perMethod, type DrawerSum } from '../domain/drawer';
import { outcomeOf, type Shift, type ShiftFigures } from '../domain/shift';
import { approvalView } from './approval-view';
import type { Names } from './shift-view';

/** Per tender: taken, given back, paid out (doctors and petty cash), dropped to the safe, and net. */
export function tendersView(sums: readonly DrawerSum[]) {
  const out = (kind: DrawerSum['kind']) => -DRAWER_SIGN[kind];
  const taken = perMethod(sums, ['payment']);
  const givenBack = perMethod(sums, ['refund', 'reversal']);
  const paidOut = perMethod(sums, ['payout', 'payout_reversal', 'petty_payout'], out);
  const dropped = perMethod(sums, ['drop']);
  return Object.fromEntries(
    PAYMENT_METHODS.map((m) => [
      m,
      {
        taken: fromCents(taken[m]),
        given_back: fromCents(givenBack[m]),
        paid_out: fromCents(paidOut[m]),
        dropped: fromCents(dropped[m]),
        net: fromCents(taken[m] - givenBack[m] - paidOut[m]),
      },
    ]),
  ) as Record<
    (typeof PAYMENT_METHODS)[number],
    Record<'taken' | 'given_back' | 'paid_out' | 'dropped' | 'net', number>
  >;
}

const methods = (cents: ShiftFigures['taken']) => ({
  Cash: fromCents(cents.Cash),
  Card: fromCents(cents.Card),
  Online: fromCents(cents.Online),
});

/** A shift as the day-end lists it: its drawer from float to count. */
export function dayEndShiftView(shift: Shift, figures: ShiftFigures, names: Names, clock: ClinicClock) {
  const expected = shift.count?.expected_cents ?? figures.expected;
  const difference = shift.count ? shift.count.counted_cents - expected : null;
  return {
    id: shift.id,
    user_id: shift.user_id,
    user_name: names.get(shift.user_id) ?? null,
    status: shift.status,
    opened_at: clock.timestamp(shift.opened_at)!,
    closed_at: clock.timestamp(shift.closed_at),
    float: fromCents(shift.float_cents),
    taken: methods(figures.taken),
    given_back: methods(figures.given_back),
    paid_to_doctors: fromCents(figures.paid_to_doctors),
    dropped: fromCents(figures.dropped),
    paid_out: fromCents(figures.paid_out),
    expected: fromCents(expected),
    counted: nullableAmount(shift.count?.counted_cents),
    difference: nullableAmount(difference),
    outcome: outcomeOf(difference),
    handed_to: shift.handover?.to_user_id ?? null,
    signed_off_by: shift.sign_off?.by ?? null,
  };
}

/** An approval as the day-end's exceptions list it. */
export function exceptionView(approval: Approval, names: Names, clock: ClinicClock) {
  const view = approvalView(approval, names, clock);
  const approved = approval.status === 'approved' || approval.status === 'used';
  return {
    approval_id: view.id,
    status: view.status,
    rules: [...new Set(approval.checks.map((c) => c.rule))],
    checks: view.checks,
    reason: view.reason,
    requested_by: view.requested_by,
    requested_at: view.requested_at!,
    approved_by: approved ? view.decided_by : null,
    approved_at: approved ? view.decided_at : null,
    used_on: approval.used ? `${approval.used.target} ${approval.used.id}` : null,
  };
}

/** The day-end's cash office section, as the report carries it. */
export interface CashOfficeDayEndView {
  tenders?: ReturnType<typeof tendersView>;
  shifts?: Array<ReturnType<typeof dayEndShiftView>>;
  exceptions?: Array<ReturnType<typeof exceptionView>>;
}
