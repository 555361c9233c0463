/** How the API, the events and the day-end show a shift and its drawer. */
import { fromCents, nullableAmount, type ClinicClock } from '@clinic/service-kit';
import { outcomeOf, type Denomination, type Shift, type ShiftFigures } from '../domain/shift';

/** Names of the staff users a view shows. */
export type Names = ReadonlyMap<number, string>;

const denominationsView = (list: Denomination[] | null) =>
  list?.map((d) => ({ value: fromCents(d.value_cents), count: d.count })) ?? null;

const perMethod = (cents: ShiftFigures['taken']) => ({
  Cash: fromCents(cents.Cash),
  Card: fromCents(cents.Card),
  Online: fromCents(cents.Online),
});

/** A shift with its drawer's figures (from its ledger: what is still being recorded is not in them yet). */
export function shiftView(shift: Shift, figures: ShiftFigures, names: Names, clock: ClinicClock) {
  const count = shift.count;
  const difference = count ? count.counted_cents - count.expected_cents : null;
  return {
    id: shift.id,
    store_id: shift.store_id,
    day: shift.day,
    user_id: shift.user_id,
    user_name: names.get(shift.user_id) ?? null,
    status: shift.status,
    opened_at: clock.timestamp(shift.opened_at),
    opened_by: shift.opened_by,
    float: fromCents(shift.float_cents),
    float_denominations: denominationsView(shift.float_denominations),
    from_shift_id: shift.from_shift_id,
    cash: {
      float: fromCents(shift.float_cents),
      taken: fromCents(figures.taken.Cash),
      given_back: fromCents(figures.given_back.Cash),
      paid_to_doctors: fromCents(figures.paid_to_doctors),
      dropped: fromCents(figures.dropped),
      paid_out: fromCents(figures.paid_out),
      expected: fromCents(figures.expected),
    },
    taken: perMethod(figures.taken),
    given_back: perMethod(figures.given_back),
    movements: shift.movements.map((m) => ({
      id: m.id,
      kind: m.kind,
      amount: fromCents(m.amount_cents),
      reason: m.reason,
      at: clock.timestamp(m.at),
      by: m.by,
    })),
    count: count && {
      counted: fromCents(count.counted_cents),
      denominations: denominationsView(count.denominations),
      expected: fromCents(count.expected_cents),
      difference: nullableAmount(difference),
      outcome: outcomeOf(difference),
      at: clock.timestamp(count.at),
      by: count.by,
      note: count.note,
    },
    handover: shift.handover && {
      to_user_id: shift.handover.to_user_id,
      to_user_name: names.get(shift.handover.to_user_id) ?? null,
      to_shift_id: shift.handover.to_shift_id,
      at: clock.timestamp(shift.handover.at),
      accepted_at: clock.timestamp(shift.handover.accepted_at),
    },
    sign_off: shift.sign_off && {
      by: shift.sign_off.by,
      at: clock.timestamp(shift.sign_off.at),
      note: shift.sign_off.note,
    },
    closed_at: clock.timestamp(shift.closed_at),
  };
}

/** The staff users a shift's view names. */
export const namedIn = (shift: Shift): number[] => [
  shift.user_id,
  ...(shift.handover ? [shift.handover.to_user_id] : []),
];
