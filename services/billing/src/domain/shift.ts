/**
 * A cashier's shift: its drawer opens with a float, takes payments
 * and pays refunds, drops cash to the safe and pays petty cash out, and is
 * closed with a count or handed over to the next cashier. The model and its
 * pure rules: what the drawer should hold, over and short, who may use it.
 */
import { SHIFT_MESSAGES, type Caller, type CashOutcome, type ShiftMovement, type ShiftStatus } from '@clinic/contracts';
import { badRequest, fail, type Cents } from '@clinic/service-kit';
import { cashOf, DRAWER_SIGN, perMethod, type DrawerSum } from './drawer';

export interface Denomination {
  value_cents: Cents;
  count: number;
}

/** Cash that left the drawer by the shift's own hand. */
export interface ShiftMovementRecord {
  /** Also its drawer entry's id in the ledger. */
  id: string;
  kind: ShiftMovement;
  amount_cents: Cents;
  reason: string | null;
  at: Date;
  by: Caller;
}

/** The document a write holding cash changes (a bill, an account, a settlement, the shift): it holds the entry once the write landed. */
export interface HoldOwner {
  collection: string;
  key: string;
  /** Where it keeps the entry's id (`ledger.id`); dotted paths are not stored as keys, only named. */
  paths: string[];
}

/**
 * Cash promised out of the drawer by a write in flight (a refund, a drop):
 * counted against the drawer until its ledger entry is stored, or until the
 * write is known never to land (its `owner` lacks the entry).
 */
export interface CashHold {
  /** The ledger entry's id. */
  id: string;
  amount_cents: Cents;
  at: Date;
  owner: HoldOwner;
}

export interface ShiftCount {
  counted_cents: Cents;
  denominations: Denomination[] | null;
  expected_cents: Cents;
  at: Date;
  by: Caller;
  note: string | null;
}

export interface Shift {
  id: number;
  store_id: number;
  /** The clinic's day it opened. */
  day: string;
  /** The staff user whose drawer it is. */
  user_id: number;
  opened_by: Caller;
  opened_at: Date;
  status: ShiftStatus;
  float_cents: Cents;
  float_denominations: Denomination[] | null;
  note: string | null;
  from_shift_id: number | null;
  movements: ShiftMovementRecord[];
  holds: CashHold[];
  count: ShiftCount | null;
  handover: {
    to_user_id: number;
    at: Date;
    by: Caller;
    to_shift_id: number | null;
    accepted_at: Date | null;
  } | null;
  sign_off: { by: Caller; at: Date; note: string | null } | null;
  closed_at: Date | null;
}

/** A shift as stored: changed only by compare-and-set writes of its version. */
export interface ShiftDoc extends Shift {
  _id: string;
  /** `<store>:<user>` while the shift lives (unique: one live shift per cashier and branch), `shift:<id>` after. */
  open_key: string;
  live: boolean;
  /** Changed by every write: each write names the version it read. */
  version: number;
  _event_ids: string[];
}

/** What a shift opens with; the rest of it as a shift begins: nothing moved, counted or handed over. */
export type ShiftOpening = Pick<
  Shift,
  | 'store_id'
  | 'day'
  | 'user_id'
  | 'opened_by'
  | 'opened_at'
  | 'float_cents'
  | 'float_denominations'
  | 'note'
  | 'from_shift_id'
>;

export function openingShift(opening: ShiftOpening): Omit<Shift, 'id'> {
  return {
    ...opening,
    status: 'open',
    movements: [],
    holds: [],
    count: null,
    handover: null,
    sign_off: null,
    closed_at: null,
  };
}

/** The sum of a list of notes and coins. */
export const denominationsTotal = (list: readonly Denomination[]): Cents =>
  list.reduce((sum, d) => sum + d.value_cents * d.count, 0);

/** A count by denomination must add up to the amount given with it. */
export function checkDenominations(field: string, amount: Cents, list: readonly Denomination[] | null): void {
  if (list && denominationsTotal(list) !== amount)
    throw badRequest(SHIFT_MESSAGES.denominationsMismatch(field, denominationsTotal(list)), field);
}

/** What a shift's ledger says its drawer took and gave out, and what it should hold. */
export interface ShiftFigures {
  taken: Record<'Cash' | 'Card' | 'Online', Cents>;
  given_back: Record<'Cash' | 'Card' | 'Online', Cents>;
  paid_to_doctors: Cents;
  dropped: Cents;
  paid_out: Cents;
  /** Float plus every cash move: what the drawer should hold. */
  expected: Cents;
}

export function shiftFigures(floatCents: Cents, sums: readonly DrawerSum[]): ShiftFigures {
  const cash = (kinds: DrawerSum['kind'][], sign = (kind: DrawerSum['kind']) => -DRAWER_SIGN[kind]) =>
    perMethod(sums, kinds, sign).Cash;
  return {
    taken: perMethod(sums, ['payment']),
    given_back: perMethod(sums, ['refund', 'reversal']),
    paid_to_doctors: cash(['payout', 'payout_reversal']),
    dropped: cash(['drop']),
    paid_out: cash(['petty_payout']),
    expected: floatCents + cashOf(sums),
  };
}

/**
 * The cash a shift may still give out: its float and every cash move its
 * ledger holds, less the holds of writes in flight (an entry both held and
 * stored is counted once, as its hold).
 */
export function availableCash(
  floatCents: Cents,
  storedUnheld: readonly DrawerSum[],
  holds: readonly CashHold[],
): Cents {
  return floatCents + cashOf(storedUnheld) - holds.reduce((sum, h) => sum + h.amount_cents, 0);
}

export function outcomeOf(difference: Cents | null): CashOutcome {
  if (difference === null) return 'not counted';
  return difference > 0 ? 'over' : difference < 0 ? 'short' : 'balanced';
}

/** 409 unless the shift takes money: open, not being closed or handed over. */
export function assertTakesMoney(shift: Pick<Shift, 'id' | 'status'>): void {
  if (shift.status !== 'open') throw fail('SHIFT_NOT_OPEN', SHIFT_MESSAGES.notOpen(shift.id, shift.status));
}

/** 403 unless the caller is the shift's cashier or an admin. */
export function assertMayUse(shift: Pick<Shift, 'id' | 'user_id'>, staffId: number | null, role: string): void {
  if (role !== 'admin' && shift.user_id !== staffId) throw fail('SHIFT_NOT_YOURS', SHIFT_MESSAGES.notYours(shift.id));
}

/** Holds whose writes are decided: stored in the ledger, or never to land. */
export function settledHolds(
  holds: readonly CashHold[],
  stored: ReadonlySet<string>,
  landed: ReadonlySet<string>,
  now: number,
  staleMs: number,
): Set<string> {
  return new Set(
    holds.filter((h) => stored.has(h.id) || (!landed.has(h.id) && now - h.at.getTime() > staleMs)).map((h) => h.id),
  );
}
