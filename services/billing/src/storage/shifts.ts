/**
 * Cashiers' shifts, one document each. Every change of a shift is
 * a compare-and-set write of the version read, so that a drop, a close and
 * the holds of refunds in flight (shift-holds.ts) never pass each other, on
 * any replica. At most one live shift per cashier and branch: the unique
 * `open_key` names the cashier and branch while the shift lives, and the
 * shift alone once it is closed or handed over (no partial index needed).
 * Closing follows a day close's protocol (day-closings.ts): mark, wait for
 * the writes fenced with the shift, then count.
 */
import type { Collection, Db } from 'mongodb';
import { EventSubjects, LIVE_SHIFT_STATUSES, SHIFT_MESSAGES, type EventSubject } from '@clinic/contracts';
import { fail } from '@clinic/service-kit';
import { fenceCleared, withFreshId, type CarriedDoc, type StorageDeps } from '@clinic/service-kit/storage';
import type { Shift, ShiftDoc } from '../domain/shift';
import { docKey, isDuplicateKeyError, type IndexSpec } from './database-quirks';
import { fenceOf, type DayClosings } from './day-closings';
import { writeVersion } from './versioned-write';

export const SHIFTS = 'shifts';

export const SHIFT_INDEXES = {
  openKey: 'shifts_open_key_unique',
  byDay: 'shifts_by_day',
  live: 'shifts_live',
} as const;

export const SHIFT_INDEX_DESCRIPTIONS: IndexSpec[] = [
  { key: { open_key: 1 }, name: SHIFT_INDEXES.openKey, unique: true },
  { key: { store_id: 1, day: 1 }, name: SHIFT_INDEXES.byDay },
  { key: { store_id: 1, live: 1, day: 1 }, name: SHIFT_INDEXES.live },
];

/** What the outbox entry of a money move in a shift's drawer carries: its close waits for it. */
export const shiftFence = (shiftId: number) => `shift:${shiftId}`;

const liveKey = (storeId: number, userId: number) => `${storeId}:${userId}`;
const doneKey = (shiftId: number) => `shift:${shiftId}`;

/** Who changes a shift, and how its events show it. */
export interface ShiftContext {
  actor: { sub: number | string; role: string };
  correlationId: string;
  view: (doc: Shift) => Record<string, unknown>;
}

/** A write of a shift: what it sets, its event, and what it carries (a drop's drawer entry). */
export interface ShiftWrite {
  set: Partial<ShiftDoc>;
  subject: EventSubject;
  records?: CarriedDoc[];
  /** The event's id, when a record it carries is known by it (a drop's drawer entry is the movement's id). */
  eventId?: string;
  /** Days money moves on (must be open); a move also holds back the shift's close. */
  moneyDays?: string[];
}

/** The cash figures of a shift come from the drawer ledger; these are its own fields' changes. */
export class Shifts {
  readonly shifts: Collection<ShiftDoc>;

  constructor(
    db: Db,
    private readonly deps: StorageDeps,
    private readonly closings: DayClosings,
  ) {
    this.shifts = db.collection<ShiftDoc>(SHIFTS);
  }

  find(id: number): Promise<ShiftDoc | null> {
    return this.shifts.findOne({ _id: docKey(id) });
  }

  /** The cashier's live shift at a branch, if any. */
  liveOf(storeId: number, userId: number): Promise<ShiftDoc | null> {
    return this.shifts.findOne({ open_key: liveKey(storeId, userId) }, { hint: SHIFT_INDEXES.openKey });
  }

  /** A branch's shifts opened on a day, in the order they opened (ids come from each replica's own block). */
  async ofDay(storeId: number, day: string): Promise<ShiftDoc[]> {
    const docs = await this.shifts.find({ store_id: storeId, day }).hint(SHIFT_INDEXES.byDay).toArray();
    return docs.sort((a, b) => a.opened_at.getTime() - b.opened_at.getTime() || a.id - b.id);
  }

  /** A branch's shifts still live that opened on `day` or before: the day cannot close while they hold drawers. */
  async liveUpTo(storeId: number, day: string): Promise<ShiftDoc[]> {
    const docs = await this.shifts
      .find({ store_id: storeId, live: true, day: { $lte: day } })
      .hint(SHIFT_INDEXES.live)
      .toArray();
    return docs.filter((d) => LIVE_SHIFT_STATUSES.includes(d.status)).sort((a, b) => a.id - b.id);
  }

  /**
   * Stores a new shift under a fresh id (or `id`, a handover's), with its
   * event; 409 when the cashier has a live shift at the branch. The day it
   * opens on must be open.
   */
  async open(shift: Omit<Shift, 'id'>, context: ShiftContext, id?: number): Promise<ShiftDoc> {
    const insert = async (shiftId: number) => {
      const doc: ShiftDoc = {
        ...shift,
        id: shiftId,
        _id: docKey(shiftId),
        open_key: liveKey(shift.store_id, shift.user_id),
        live: true,
        version: 1,
        _event_ids: [],
      };
      return this.deps.outbox.record(
        {
          subject: EventSubjects.shiftOpened,
          data: { shift: context.view(doc) },
          correlationId: context.correlationId,
          collection: SHIFTS,
          key: doc._id,
          fences: [fenceOf(shift.store_id, shift.day)],
        },
        async (eventId, options) => {
          doc._event_ids = [eventId];
          await this.shifts.insertOne(doc, options);
          return doc;
        },
        () => this.closings.assertOpen(shift.store_id, [shift.day]),
      );
    };
    try {
      if (id !== undefined) return await insert(id);
      return await withFreshId(this.deps.ids, SHIFTS, this.shifts, insert);
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const live = await this.liveOf(shift.store_id, shift.user_id);
      if (live) throw fail('SHIFT_ALREADY_OPEN', SHIFT_MESSAGES.alreadyOpen(shift.store_id, live.id));
      throw err;
    }
  }

  /**
   * A compare-and-set write of the version found, with its event; null when
   * the shift changed meanwhile (read it again). A write ending the shift
   * frees its cashier's key for a new one.
   */
  write(found: ShiftDoc, change: ShiftWrite, context: ShiftContext): Promise<ShiftDoc | null> {
    const ends = change.set.status === 'closed' || change.set.status === 'handed_over';
    const set: Partial<ShiftDoc> = { ...change.set, ...(ends ? { live: false, open_key: doneKey(found.id) } : {}) };
    const days = change.moneyDays ?? [];
    return writeVersion<ShiftDoc>(
      this.deps.outbox,
      this.shifts,
      found,
      set,
      (after) => ({
        subject: change.subject,
        eventId: change.eventId,
        data: { shift: context.view(after) },
        correlationId: context.correlationId,
        records: change.records,
        fences: [...days.map((d) => fenceOf(found.store_id, d)), ...(days.length > 0 ? [shiftFence(found.id)] : [])],
      }),
      days.length > 0 ? () => this.closings.assertOpen(found.store_id, days) : undefined,
    );
  }

  /** Changes the shift's fields alone (its holds, a mark), on the version found; false when it changed meanwhile. */
  async setFields(found: ShiftDoc, set: Partial<ShiftDoc>): Promise<boolean> {
    const result = await this.shifts.updateOne(
      { _id: found._id, version: found.version },
      { $set: { ...set, version: found.version + 1 } },
    );
    return result.matchedCount === 1;
  }

  /** An id for a shift known before it is stored (a handover's next shift). */
  newId(): Promise<number> {
    return this.deps.ids.next(SHIFTS);
  }

  /**
   * Marks a shift `closing` (from open, or from a mark a close that died
   * left): from then on no money move takes it. Null when it changed meanwhile.
   */
  async mark(found: ShiftDoc): Promise<ShiftDoc | null> {
    return (await this.setFields(found, { status: 'closing' }))
      ? { ...found, status: 'closing', version: found.version + 1 }
      : null;
  }

  /** Takes back the mark of a close that gave up, unless the shift changed since. */
  async unmark(marked: ShiftDoc): Promise<void> {
    await this.setFields(marked, { status: 'open' });
  }

  /** Whether every money move of the shift that read it open has landed, waiting up to `waitMs`. */
  settled(shiftId: number, waitMs: number): Promise<boolean> {
    return fenceCleared(this.deps.outbox, shiftFence(shiftId), waitMs);
  }
}
