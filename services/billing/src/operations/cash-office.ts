/**
 * Every money move has a drawer. With shifts off, the mover's own
 * (their staff user's when their token maps to one), and money given back by
 * a cancellation or a bill set back to Pending comes out of the drawers that
 * took it. With CASH_SHIFTS=on, an open shift's: the one the request names
 * (its cashier's own, or any of the branch's for an admin) or else the
 * caller's; its cash going out is held on the shift first (shift-holds.ts).
 * A caller who is no known staff user may then read, not move money.
 */
import { newEventId } from '@clinic/service-kit/storage';
import { SHIFT_MESSAGES, type Caller } from '@clinic/contracts';
import { callerOf, fail, ServiceError, type ClinicClock, type HandlerContext } from '@clinic/service-kit';
import { DRAWER_SIGN, userKey, type DrawerKind, type DrawerRef } from '../domain/drawer';
import { assertMayUse } from '../domain/shift';
import { drawerUserOf, userIdOf, type StaffUser } from '../domain/staff';
import type { Mover } from '../domain/money-rules';
import type { BillingReferences } from '../references';
import type { BillStorage } from '../storage';
import type { ShiftDoc } from '../domain/shift';
import type { CashGuard, CashOut } from '../domain/cash-guard';
import type { LedgerEntryDoc } from '../domain/ledger-entry';
import type { HoldOwner } from '../domain/shift';

export interface CashOfficeSettings {
  /** CASH_SHIFTS=on. */
  shifts: boolean;
  /** MONEY_NEEDS_STAFF=true (implied by shifts): a caller who is no known staff user moves no money. */
  moneyNeedsStaff: boolean;
}

/** A move of a drawer's money: a ledger entry, or a doctor's payout. */
export type Moved = Pick<LedgerEntryDoc, 'id' | 'method' | 'amount_cents'> & { kind: DrawerKind };

/** Where a request's money moves. */
export interface MoneyDrawer {
  caller: Caller;
  staff: StaffUser | null;
  ref: DrawerRef;
  shift: ShiftDoc | null;
  /** Money going back comes from the drawers that took it (shifts off). */
  backFromTakers: boolean;
}

/**
 * The holds a request's writes take on a shift (a write tried again after a
 * lost race takes new ones), given back at its end when their writes did not land.
 */
export class CashScope {
  private readonly guards: CashGuard[] = [];

  constructor(private readonly office: CashOffice) {}

  /** The guard of a write of these entries (none without a shift); `owner`: the document the write changes. */
  guard(drawer: MoneyDrawer, entries: readonly Moved[], owner: HoldOwner): CashGuard | undefined {
    const guard = this.office.guardOf(drawer, entries, owner);
    if (guard) this.guards.push(guard);
    return guard;
  }

  /** Gives back the holds of writes that did not land; `landed`: the entries of the one that did. */
  async settle(landed: readonly string[]): Promise<void> {
    await Promise.all(this.guards.map((g) => g.release(landed)));
  }

  /**
   * Runs the request's writes; at their end gives back what their holds kept
   * of writes that did not land. A failure that may have landed keeps them
   * (they lapse once the write is known never to land).
   */
  async run<T>(write: () => Promise<T>, landed: (result: T) => readonly string[]): Promise<T> {
    let result: T;
    try {
      result = await write();
    } catch (err) {
      if (err instanceof ServiceError) await this.settle([]).catch(() => undefined);
      throw err;
    }
    await this.settle(landed(result)).catch(() => undefined);
    return result;
  }
}

export class CashOffice {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly clock: ClinicClock,
    readonly settings: CashOfficeSettings,
  ) {}

  get shiftsOn(): boolean {
    return this.settings.shifts;
  }

  /** The staff user the caller is, when known; 403 when money needs one and the caller is none. */
  async staffOf(caller: Caller, forMoney: boolean): Promise<StaffUser | null> {
    const enforced = forMoney && (this.settings.shifts || this.settings.moneyNeedsStaff);
    const id = userIdOf(caller.sub);
    // Unless staff must be known, a user id names its user: no directory read on the way to the money.
    if (!enforced && id !== null) return { user_id: id, name: null, known: false };
    const staff = await this.refs.staffOf(caller);
    if (enforced && !staff?.known) throw fail('STAFF_UNKNOWN');
    return staff;
  }

  /**
   * The drawer money of branch `storeId` moves in for a caller (their staff
   * user, from staffOf) naming `shiftId` (null: none).
   */
  async drawerFor(
    caller: Caller,
    staff: StaffUser | null,
    storeId: number,
    shiftId: number | null,
  ): Promise<MoneyDrawer> {
    if (!this.settings.shifts)
      return {
        caller,
        staff,
        ref: { user: drawerUserOf(staff, caller.sub), shift_id: null },
        shift: null,
        backFromTakers: true,
      };
    const shift = await this.shiftFor(storeId, shiftId, staff!, caller);
    return { caller, staff, ref: { user: shift.user_id, shift_id: shift.id }, shift, backFromTakers: false };
  }

  private async shiftFor(storeId: number, shiftId: number | null, staff: StaffUser, caller: Caller): Promise<ShiftDoc> {
    const { shifts } = this.storage.cashOffice;
    const shift = shiftId === null ? await shifts.liveOf(storeId, staff.user_id) : await shifts.find(shiftId);
    if (!shift) {
      if (shiftId === null) throw fail('SHIFT_REQUIRED', SHIFT_MESSAGES.required(storeId));
      throw fail('SHIFT_NOT_FOUND', undefined, 'shift_id');
    }
    if (shift.store_id !== storeId)
      throw fail('SHIFT_NOT_OPEN', SHIFT_MESSAGES.otherBranch(shift.id, storeId), 'shift_id');
    assertMayUse(shift, staff.user_id, caller.role);
    if (shift.status !== 'open')
      throw fail(
        'SHIFT_NOT_OPEN',
        SHIFT_MESSAGES.notOpen(shift.id, shift.status),
        shiftId === null ? undefined : 'shift_id',
      );
    return shift;
  }

  /** The caller moves money today, on the clinic's clock, in the drawer; each entry named by its event's id. */
  mover(drawer: MoneyDrawer): Mover {
    const at = new Date();
    return {
      by: drawer.caller,
      day: this.clock.timestamp(at)!.slice(0, 10),
      at,
      newId: newEventId,
      drawer: drawer.ref,
      backFromTakers: drawer.backFromTakers,
    };
  }

  /** The caller's own drawer, unchecked: for planning whether a change moves money at all. */
  draft(caller: Caller): MoneyDrawer {
    return {
      caller,
      staff: null,
      ref: { user: userKey(caller.sub), shift_id: null },
      shift: null,
      backFromTakers: false,
    };
  }

  /** A request's scope of holds on its drawer's shift. */
  scope(): CashScope {
    return new CashScope(this);
  }

  /** A request's drawer, its caller a staff user when money needs one (403 otherwise). */
  async drawerOf(ctx: HandlerContext, storeId: number, shiftId: number | null): Promise<MoneyDrawer> {
    const caller = callerOf(ctx);
    return this.drawerFor(caller, await this.staffOf(caller, true), storeId, shiftId);
  }

  /** With a shift: the write is fenced with it, and what its entries take out in cash is held. */
  guardOf(drawer: MoneyDrawer, entries: readonly Moved[], owner: HoldOwner): CashGuard | undefined {
    if (!drawer.shift) return undefined;
    const out: CashOut[] = entries
      .filter((e) => e.method === 'Cash' && DRAWER_SIGN[e.kind] < 0)
      .map((e) => ({ id: e.id, amount_cents: e.amount_cents }));
    return this.storage.cashOffice.cash.guardFor(drawer.shift.id, out, owner);
  }
}
