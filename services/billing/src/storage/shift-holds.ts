/**
 * A shift's drawer never gives out more cash than it holds, across replicas
 * and without transactions. Cash coming in is counted from the drawer ledger
 * (bill_ledger, stored once its write landed: late is the safe side). Cash
 * going out is held first, on the shift's document, by a compare-and-set
 * write that checks what is left: the guard of the refund's (or payout's)
 * write does it after its outbox entry is stored, so that a close of the
 * shift waits for it. A hold counts until its ledger entry is stored, or
 * until its write is known never to land (HOLD_STALE_MS after it, the
 * write's document lacks the entry); a write refused outright gives its
 * holds back at once.
 */
import type { Collection, Db } from 'mongodb';
import { EventSubjects, SHIFT_MESSAGES, type PaymentMethod } from '@clinic/contracts';
import { fail, type Cents } from '@clinic/service-kit';
import { KeyedMutex } from '@clinic/service-kit/storage';
import type { DrawerKind, DrawerSum } from '../domain/drawer';
import {
  assertTakesMoney,
  availableCash,
  settledHolds,
  type CashHold,
  type HoldOwner,
  type ShiftMovementRecord,
} from '../domain/shift';
import { BILL_INDEXES } from './indexes';
import { BILL_LEDGER, drawerEntry } from './ledger-documents';
import type { DrawerEntryDoc } from '../domain/drawer-rows';
import { SHIFTS, shiftFence, type ShiftContext, type Shifts } from './shifts';
import type { ShiftDoc } from '../domain/shift';
import type { CashGuard, CashOut } from '../domain/cash-guard';

/** Well past a write's window (4 s from its outbox entry, which is stored before its hold is taken). */
export const HOLD_STALE_MS = 30_000;

export class ShiftCash {
  private readonly entries: Collection<DrawerEntryDoc>;
  /** Holds on one shift in this process, one at a time: only replicas race on its version. */
  private readonly queue = new KeyedMutex();

  constructor(
    db: Db,
    private readonly shifts: Shifts,
  ) {
    this.entries = db.collection<DrawerEntryDoc>(BILL_LEDGER);
  }

  /** The shift's drawer entries in the ledger, summed per kind and method. */
  async sums(shiftId: number): Promise<DrawerSum[]> {
    const rows = await this.entries
      .aggregate<{ _id: { k: DrawerKind; m: PaymentMethod }; a: number }>(
        [
          { $match: { shift_id: shiftId } },
          { $group: { _id: { k: '$kind', m: '$method' }, a: { $sum: '$amount_cents' } } },
        ],
        { hint: BILL_INDEXES.ledgerByShift },
      )
      .toArray();
    return rows.map((row) => ({ kind: row._id.k, method: row._id.m, amount_cents: row.a }));
  }

  /** The cash the drawer may still give out, and the holds still counting (those settled left out). */
  async available(shift: ShiftDoc): Promise<{ cents: Cents; keep: CashHold[] }> {
    const ids = shift.holds.map((h) => h.id);
    const stored = new Set(
      ids.length === 0
        ? []
        : (await this.entries.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((e) => e._id),
    );
    const now = Date.now();
    const stale = shift.holds.filter((h) => !stored.has(h.id) && now - h.at.getTime() > HOLD_STALE_MS);
    const landed = new Set<string>();
    for (const hold of stale) {
      const { collection, key, paths } = hold.owner;
      const found = await this.entries.db
        .collection<{ _id: string }>(collection)
        .countDocuments({ _id: key, $or: paths.map((path) => ({ [path]: hold.id })) });
      if (found > 0) landed.add(hold.id);
    }
    const settled = settledHolds(shift.holds, stored, landed, now, HOLD_STALE_MS);
    const keep = shift.holds.filter((h) => !settled.has(h.id));
    // Read after the stored ones were found: an entry stored meanwhile is counted twice, never left out.
    const sums = await this.sums(shift.id);
    return { cents: availableCash(shift.float_cents, sums, keep), keep };
  }

  /** Holds cash going out of an open shift's drawer; 409 when the drawer holds too little. */
  hold(shiftId: number, out: readonly CashOut[], owner: HoldOwner): Promise<void> {
    return this.queue.run(String(shiftId), async () => {
      for (;;) {
        const shift = await this.existing(shiftId);
        assertTakesMoney(shift);
        const fresh = out.filter((o) => !shift.holds.some((h) => h.id === o.id));
        if (fresh.length === 0) return;
        const { cents, keep } = await this.available(shift);
        const wanted = fresh.reduce((sum, o) => sum + o.amount_cents, 0);
        if (wanted > cents) throw fail('DRAWER_SHORT', SHIFT_MESSAGES.drawerShort(shift.id, Math.max(0, cents)));
        const at = new Date();
        const holds = [...keep, ...fresh.map((o) => ({ ...o, at, owner }))];
        if (await this.shifts.setFields(shift, { holds })) return;
      }
    });
  }

  /**
   * Records cash leaving the drawer by the shift's own hand (a drop to the
   * safe, petty cash) on the day `day`: refused when the drawer holds too
   * little. `check` refuses a shift the caller may not use.
   */
  move(
    shiftId: number,
    movement: ShiftMovementRecord,
    day: string,
    context: ShiftContext,
    check: (shift: ShiftDoc) => void,
  ): Promise<ShiftDoc> {
    return this.queue.run(String(shiftId), async () => {
      for (;;) {
        const shift = await this.existing(shiftId);
        check(shift);
        assertTakesMoney(shift);
        const { cents, keep } = await this.available(shift);
        if (movement.amount_cents > cents)
          throw fail('DRAWER_SHORT', SHIFT_MESSAGES.drawerShort(shift.id, Math.max(0, cents)));
        const { id, amount_cents, at } = movement;
        const hold = {
          id,
          amount_cents,
          at,
          owner: { collection: SHIFTS, key: shift._id, paths: ['movements.id'] },
        };
        const moved = {
          kind: movement.kind === 'drop' ? ('drop' as const) : ('petty_payout' as const),
          day,
          at,
          by: movement.by,
          drawer: { user: shift.user_id, shift_id: shift.id },
          method: 'Cash' as const,
          amount_cents,
        };
        const after = await this.shifts.write(
          shift,
          {
            set: { movements: [...shift.movements, movement], holds: [...keep, hold] },
            subject: EventSubjects.shiftCashMoved,
            eventId: id,
            records: [drawerEntry(moved, { store_id: shift.store_id })],
            moneyDays: [day],
          },
          context,
        );
        if (after) return after;
      }
    });
  }

  /** Gives back holds whose writes certainly did not land. */
  release(shiftId: number, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return Promise.resolve();
    return this.queue.run(String(shiftId), async () => {
      for (;;) {
        const shift = await this.existing(shiftId);
        const holds = shift.holds.filter((h) => !ids.includes(h.id));
        if (holds.length === shift.holds.length || (await this.shifts.setFields(shift, { holds }))) return;
      }
    });
  }

  /** 409 unless the shift takes money now. */
  async assertTakes(shiftId: number): Promise<void> {
    assertTakesMoney(await this.existing(shiftId));
  }

  /**
   * The guard of a write moving money in a shift's drawer: the write is fenced
   * with the shift, and its cash going out held (else the shift must be open).
   */
  guardFor(shiftId: number, out: readonly CashOut[], owner: HoldOwner): CashGuard {
    const taken: string[] = [];
    return {
      fences: [shiftFence(shiftId)],
      guard: async () => {
        if (out.length === 0) return this.assertTakes(shiftId);
        await this.hold(shiftId, out, owner);
        taken.push(...out.map((o) => o.id));
      },
      release: (landed) =>
        this.release(
          shiftId,
          taken.filter((id) => !landed.includes(id)),
        ),
    };
  }

  private async existing(shiftId: number): Promise<ShiftDoc> {
    const shift = await this.shifts.find(shiftId);
    if (!shift) throw fail('SHIFT_NOT_FOUND');
    return shift;
  }
}
