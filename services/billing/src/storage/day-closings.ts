/**
 * A branch's closed days: one document per (branch, date) that
 * every write of that day reads right before it writes, after its outbox
 * entry (which carries the day's fence) is stored. A close marks the day
 * `closing` first, then waits until no entry fenced with the day is left in
 * the outbox whose records are not all stored: a write that read the day
 * open had stored its entry before the mark, so the close finds it and waits
 * until it has landed and its ledger record is stored (or it was dropped),
 * published or not; a write after the mark reads `closing` and is refused.
 * Only then does the close sum the day's ledger. A close that gives up puts
 * the day back open (unmark). No transaction is needed, on either server.
 *
 * Writes read a day's status through the replica's cache (one database read
 * fewer per payment): the close stores its cache mark before it looks for the
 * day's writes, and a write that still read a cached "open" had read the
 * versions before that mark, so it had stored its entry before that look.
 */
import type { Collection, Db } from 'mongodb';
import { DAY_MESSAGES, EventSubjects, type Caller } from '@clinic/contracts';
import { fail } from '@clinic/service-kit';
import { fenceCleared, withEventId, type Outbox, type VersionedCache } from '@clinic/service-kit/storage';
import { isDuplicateKeyError } from './database-quirks';
import type { CashCountDoc, ClosingEventDoc, ClosingDoc } from '../domain/day-closing';

export const DAY_CLOSINGS = 'day_closings';

/** Who closes or reopens a day. */
export interface ClosingContext {
  actor: Caller;
  correlationId: string;
}

const closingKey = (branchId: number, date: string) => `${branchId}:${date}`;

/** What the outbox entry of a write of a branch's day carries (EventSpec.fences). */
export const fenceOf = (branchId: number, date: string) => `day:${branchId}:${date}`;

/** The cached reads of a branch's days' statuses: bumped by every change of a day's status from or to open. */
const closingsScope = (branchId: number) => `closings:${branchId}`;

/** The server's time limit for a write's look at its days (the guard before it). */
const GUARD_MAX_MS = 1_000;

export class DayClosings {
  private readonly closings: Collection<ClosingDoc>;

  constructor(
    db: Db,
    private readonly outbox: Outbox,
    private readonly cache: VersionedCache,
  ) {
    this.closings = db.collection<ClosingDoc>(DAY_CLOSINGS);
  }

  find(branchId: number, date: string): Promise<ClosingDoc | null> {
    return this.closings.findOne({ _id: closingKey(branchId, date) });
  }

  /** 409 when one of these days of a branch is closed, or being closed. */
  async assertOpen(branchId: number, dates: string[]): Promise<void> {
    const closed = await this.closedAmong(dates.map((date) => ({ store_id: branchId, date })));
    const [first] = closed;
    if (first) throw fail('DAY_CLOSED', DAY_MESSAGES.closed(first.date, first.store_id));
  }

  /** Those of these days that are closed or being closed. */
  async closedAmong(
    days: Array<{ store_id: number; date: string }>,
  ): Promise<Array<{ store_id: number; date: string }>> {
    const datesOf = new Map<number, Set<string>>();
    for (const { store_id, date } of days) datesOf.set(store_id, (datesOf.get(store_id) ?? new Set()).add(date));
    const closed = await Promise.all(
      [...datesOf].map(([branchId, dates]) => {
        const sorted = [...dates].sort();
        return this.cache.get(closingsScope(branchId), `closed:${sorted.join(',')}`, () =>
          this.readClosed(branchId, sorted),
        );
      }),
    );
    return closed.flat();
  }

  private async readClosed(branchId: number, dates: string[]): Promise<Array<{ store_id: number; date: string }>> {
    const ids = dates.map((date) => closingKey(branchId, date));
    // Bounded well within the write window of the write waiting for it (both servers honour maxTimeMS on a find).
    const docs = await this.closings
      .find({ _id: { $in: ids } }, { projection: { store_id: 1, date: 1, status: 1 }, maxTimeMS: GUARD_MAX_MS })
      .toArray();
    return docs.filter((d) => d.status !== 'open').map((d) => ({ store_id: d.store_id, date: d.date }));
  }

  /**
   * Marks a day `closing` (see markOnce) and answers it once no replica can
   * read it open from memory any more; puts it back open when that fails.
   */
  async markClosing(branchId: number, date: string): Promise<ClosingDoc> {
    const marked = await this.markOnce(branchId, date);
    try {
      await this.cache.bump(closingsScope(branchId));
    } catch (err) {
      await this.unmark(marked).catch(() => undefined);
      throw err;
    }
    return marked;
  }

  /**
   * Marks a day `closing`, from the version found (a day never closed has
   * none); answers it as marked. 409 when it is closed already.
   */
  private async markOnce(branchId: number, date: string): Promise<ClosingDoc> {
    for (;;) {
      const found = await this.find(branchId, date);
      if (found?.status === 'closed') throw fail('DAY_ALREADY_CLOSED', DAY_MESSAGES.alreadyClosed(date, branchId));
      if (!found) {
        const fresh: ClosingDoc = {
          _id: closingKey(branchId, date),
          store_id: branchId,
          date,
          status: 'closing',
          version: 1,
          closed_at: null,
          closed_by: null,
          cash: [],
          history: [],
          _event_ids: [],
        };
        try {
          await this.closings.insertOne(fresh);
          return fresh;
        } catch (err) {
          if (isDuplicateKeyError(err)) continue; // another close marked it meanwhile: read it again
          throw err;
        }
      }
      const marked = { ...found, status: 'closing' as const, version: found.version + 1 };
      const result = await this.closings.updateOne(
        { _id: found._id, version: found.version },
        { $set: { status: 'closing', version: marked.version } },
      );
      if (result.matchedCount === 1) return marked;
    }
  }

  /**
   * Takes back the mark of a close that gave up (it timed out or failed):
   * the day takes writes again, as before the mark. Compare-and-set on the
   * version marked, so a day closed, reopened or marked again meanwhile is
   * left as it is. A day left `closing` by a close that died is also
   * `open` again: a close in flight elsewhere would fail its own
   * compare-and-set after this one's mark anyway.
   */
  async unmark(marked: ClosingDoc): Promise<void> {
    await this.closings.updateOne(
      { _id: marked._id, version: marked.version },
      { $set: { status: 'open', version: marked.version + 1 } },
    );
    await this.cache.bump(closingsScope(marked.store_id));
  }

  /** Whether every write of the day that read it open has settled, waiting up to `waitMs` for them. */
  settled(branchId: number, date: string, waitMs: number): Promise<boolean> {
    return fenceCleared(this.outbox, fenceOf(branchId, date), waitMs);
  }

  /** Stores the closing of a day marked `closing` (as `marked` left it), with its event. */
  close(
    marked: ClosingDoc,
    cash: CashCountDoc[],
    context: ClosingContext,
    view: (doc: ClosingDoc) => Record<string, unknown>,
  ): Promise<ClosingDoc> {
    return this.write(marked, { status: 'closed', cash }, { action: 'closed', cash }, context, view);
  }

  /** Reopens a closed day (or one left `closing`), with the reason and its event; 409 when it is open. */
  async reopen(
    branchId: number,
    date: string,
    reason: string,
    context: ClosingContext,
    view: (doc: ClosingDoc) => Record<string, unknown>,
  ): Promise<ClosingDoc> {
    const found = await this.find(branchId, date);
    if (!found || found.status === 'open') throw fail('DAY_NOT_CLOSED', DAY_MESSAGES.notClosed(date, branchId));
    const reopened = await this.write(
      found,
      { status: 'open', cash: [] },
      { action: 'reopened', reason },
      context,
      view,
    );
    await this.cache.bump(closingsScope(branchId));
    return reopened;
  }

  /**
   * A change of the version found, as the day's history entry `happened`
   * says (at now, by the caller), with its event; 409 when the day changed meanwhile.
   */
  private async write(
    found: ClosingDoc,
    change: Pick<ClosingDoc, 'status' | 'cash'>,
    happened: Omit<ClosingEventDoc, 'at' | 'by'>,
    context: ClosingContext,
    view: (doc: ClosingDoc) => Record<string, unknown>,
  ): Promise<ClosingDoc> {
    const at = new Date();
    const by = { sub: context.actor.sub, role: context.actor.role };
    const set: Partial<ClosingDoc> = {
      ...change,
      closed_at: change.status === 'closed' ? at : null,
      closed_by: change.status === 'closed' ? by : null,
      history: [...found.history, { ...happened, at, by }],
    };
    const after: ClosingDoc = { ...found, ...set, version: found.version + 1 };
    const subject = change.status === 'closed' ? EventSubjects.dayClosed : EventSubjects.dayReopened;
    const { correlationId } = context;
    await this.outbox.record(
      { subject, data: { closing: view(after) }, correlationId, collection: DAY_CLOSINGS, key: found._id },
      async (eventId, options) => {
        after._event_ids = withEventId(found._event_ids, eventId);
        const result = await this.closings.updateOne(
          { _id: found._id, version: found.version },
          { $set: { ...set, version: after.version, _event_ids: after._event_ids } },
          options,
        );
        if (result.matchedCount === 0)
          throw fail('DAY_CHANGED_MEANWHILE', DAY_MESSAGES.changedMeanwhile(found.date, found.store_id));
      },
    );
    return after;
  }
}
