/**
 * Drawers: whose cash a money move takes in or gives out. A drawer is a staff
 * user's, and with shifts on one of their shifts'. Pure rules over ledger
 * entries; no I/O.
 */
import { PAYMENT_METHODS, type PaymentMethod } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';

export type UserId = number | string;

/** The drawer money moved in: a staff user (or, unmapped, a token's sub) and the shift, when shifts are on. */
export interface DrawerRef {
  user: UserId;
  shift_id: number | null;
}

/** What moves a drawer's money: a ledger entry's kind, a doctor's payout and its reversal, a drop, petty cash. */
export const DRAWER_KINDS = [
  'payment',
  'refund',
  'reversal',
  'payout',
  'payout_reversal',
  'drop',
  'petty_payout',
] as const;
export type DrawerKind = (typeof DRAWER_KINDS)[number];

/** Whether a kind brings money into the drawer (+1) or takes it out (-1). */
export const DRAWER_SIGN: Readonly<Record<DrawerKind, 1 | -1>> = {
  payment: 1,
  refund: -1,
  reversal: -1,
  payout: -1,
  payout_reversal: 1,
  drop: -1,
  petty_payout: -1,
};

/**
 * The one form of a user id: a token's `sub` may name user 7 as the integer
 * 7 or as the text "7" (identity providers send text), so a text that is an
 * integer written plainly (no sign but `-`, no leading zero, within the safe
 * integers) is that integer; any other text stays a text.
 */
export function userKey(id: UserId): UserId {
  if (typeof id === 'number' || !/^-?(0|[1-9]\d*)$/.test(id)) return id;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : id;
}

/** What the drawer rules read of a ledger entry. */
export interface DrawerEntry {
  kind: 'payment' | 'refund' | 'reversal';
  method: PaymentMethod;
  amount_cents: Cents;
  by: { sub: UserId };
  drawer?: DrawerRef;
}

/** The drawer an entry moved in: the one it names, or (entries from before drawers were named) its mover's. */
export function drawerOf(entry: DrawerEntry): DrawerRef {
  return entry.drawer ?? { user: userKey(entry.by.sub), shift_id: null };
}

const sameDrawer = (a: DrawerRef, b: DrawerRef) => a.user === b.user && a.shift_id === b.shift_id;

/**
 * What each drawer holds of a document's money in one method: payments taken
 * less what went back from it, most first (drawers holding nothing left out).
 */
export function heldByDrawer(entries: readonly DrawerEntry[], method: PaymentMethod): Array<[DrawerRef, Cents]> {
  const held: Array<[DrawerRef, Cents]> = [];
  for (const entry of entries.filter((e) => e.method === method)) {
    const drawer = drawerOf(entry);
    const found = held.find(([d]) => sameDrawer(d, drawer));
    const cents = (entry.kind === 'payment' ? 1 : -1) * entry.amount_cents;
    if (found) found[1] += cents;
    else held.push([drawer, cents]);
  }
  return held.filter(([, cents]) => cents > 0).sort((a, b) => b[1] - a[1]);
}

/**
 * Money going back, one amount per method, split over the drawers that took
 * it (most first): a cancellation refunded from the cashier who took the cash,
 * not from whoever cancelled. What no drawer is found for (money paid before
 * the ledger existed) comes from `fallback`.
 */
export function backToDrawers(
  amounts: ReadonlyArray<[PaymentMethod, Cents]>,
  entries: readonly DrawerEntry[],
  fallback: DrawerRef,
): Array<{ method: PaymentMethod; amount_cents: Cents; drawer: DrawerRef }> {
  return amounts.flatMap(([method, cents]) => {
    const parts: Array<{ method: PaymentMethod; amount_cents: Cents; drawer: DrawerRef }> = [];
    let left = cents;
    for (const [drawer, held] of heldByDrawer(entries, method)) {
      if (left === 0) break;
      const taken = Math.min(held, left);
      parts.push({ method, amount_cents: taken, drawer });
      left -= taken;
    }
    if (left > 0) parts.push({ method, amount_cents: left, drawer: fallback });
    return parts;
  });
}

/** Sums of a drawer's moves, per kind and method, as its ledger groups them. */
export interface DrawerSum {
  kind: DrawerKind;
  method: PaymentMethod;
  amount_cents: Cents;
}

/** Per method, the sum of the moves of these kinds (signed by `sign`, default +1). */
export function perMethod(
  sums: readonly DrawerSum[],
  kinds: readonly DrawerKind[],
  sign: (kind: DrawerKind) => number = () => 1,
): Record<PaymentMethod, Cents> {
  const totals = Object.fromEntries(PAYMENT_METHODS.map((m) => [m, 0])) as Record<PaymentMethod, Cents>;
  for (const s of sums) if (kinds.includes(s.kind)) totals[s.method] += sign(s.kind) * s.amount_cents;
  return totals;
}

/** Cash in less cash out over these moves. */
export function cashOf(sums: readonly DrawerSum[]): Cents {
  return sums.filter((s) => s.method === 'Cash').reduce((sum, s) => sum + DRAWER_SIGN[s.kind] * s.amount_cents, 0);
}
