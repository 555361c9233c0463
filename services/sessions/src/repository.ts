import { MongoBulkWriteError, type Collection, type Db, type Filter } from 'mongodb';
import { EventSubjects, type SessionStoredStatus } from '@clinic/contracts';
import {
  conflict,
  ensureIndexes,
  docKey,
  deleteByKeys,
  inChunks,
  isDuplicateKeyError,
  notFound,
  withEventId,
  withFreshId,
  type ClinicClock,
  type IdAllocator,
  type Logger,
  type Outbox,
  type ReferenceData,
  type VersionedCache,
  type WriteProof,
} from '@clinic/service-kit';
import { DayBlocks } from './blocks';
import { displayStatus, isActiveAppointment, MESSAGES, type SessionChanges, type SessionListFilter } from './rules';

export interface SessionDoc {
  _id: string;
  id: number;
  doctor_id: number;
  store_id: number;
  session_date: string;
  session_no: number;
  start_time: string;
  end_time: string;
  max_patients: number | null;
  status: SessionStoredStatus;
  created_at: Date;
  /** The auto-creation run that inserted it; hidden until that run completes. */
  run_id?: string;
  _event_ids: string[];
}

export type NewSessionDoc = Omit<SessionDoc, '_id' | 'id' | 'created_at' | '_event_ids'>;

export type RunStatus = 'running' | 'completed' | 'failed' | 'rolled_back';

interface RunDoc {
  _id: string;
  status: RunStatus;
  month: string;
  started_at: Date;
  finished_at: Date | null;
}

const COLLECTION = 'sessions';
/** Sessions one insert writes at most. */
const WRITE_SLICE = 500;
const LEAVES_BY_DOCTOR = 'leaves_by_doctor';
const HOLIDAYS_BY_DATE = 'holidays_by_date';
/** Cache scope of everything a session read shows: sessions, runs, and the doctors, stores and appointments joined in. */
export const SESSIONS_SCOPE = 'sessions';
/** A run still "running" after this long belongs to a process that died. */
export const RUN_LEASE_MS = 5 * 60_000;
/**
 * A write that timed out on our side may still be executed by the server
 * later (a "zombie" insert), after its run was rolled back. For this long
 * after a rollback, the run's sessions stay hidden and are deleted again.
 */
export const ZOMBIE_WINDOW_MS = 60 * 60_000;

export class SessionRepository {
  private readonly sessions: Collection<SessionDoc>;
  private readonly runs: Collection<RunDoc>;

  constructor(
    db: Db,
    private readonly ids: IdAllocator,
    private readonly outbox: Outbox,
    private readonly refs: ReferenceData,
    private readonly clock: ClinicClock,
    private readonly cache: VersionedCache,
  ) {
    this.sessions = db.collection<SessionDoc>(COLLECTION);
    this.runs = db.collection<RunDoc>('auto_create_runs');
  }

  async ensureIndexes(): Promise<void> {
    // The slot index also serves a doctor's sessions by date (the preview's `exists`).
    await ensureIndexes(this.sessions, [
      { key: { doctor_id: 1, store_id: 1, session_date: 1, session_no: 1 }, name: 'session_slot_unique', unique: true },
      { key: { store_id: 1, session_date: -1, start_time: 1 }, name: 'sessions_by_store_date' },
      { key: { doctor_id: 1, session_date: -1, start_time: 1 }, name: 'sessions_by_doctor_date' },
      { key: { session_date: -1, start_time: 1 }, name: 'sessions_by_date' },
      { key: { run_id: 1 }, name: 'sessions_by_run', sparse: true },
    ]);
    await ensureIndexes(this.refs.collection('appointment'), [{ key: { session_id: 1, deleted: 1 }, name: 'appointments_by_session_live' }]);
    await this.refs.collection('appointment').dropIndex('appointments_by_session').catch(() => undefined);
    await ensureIndexes(this.runs, [
      { key: { status: 1, started_at: 1 }, name: 'runs_by_status' },
      { key: { status: 1, finished_at: 1 }, name: 'runs_by_status_finished' },
    ]);
    await ensureIndexes(this.refs.collection('doctor_leave'), [{ key: { doctor_id: 1, from_date: 1 }, name: LEAVES_BY_DOCTOR }]);
    await ensureIndexes(this.refs.collection('holiday'), [{ key: { date: 1 }, name: HOLIDAYS_BY_DATE }]);
  }

  /**
   * The leaves and holidays that touch the dates `from`..`to` (every one
   * without a range), for these doctors (every doctor without a list).
   */
  async dayBlocks(range?: { from: string; to: string }, doctorIds?: number[]): Promise<DayBlocks> {
    const leaveQuery: Record<string, unknown> = { deleted: false };
    const holidayQuery: Record<string, unknown> = { deleted: false };
    if (doctorIds) leaveQuery.doctor_id = { $in: doctorIds };
    if (range) {
      Object.assign(leaveQuery, { from_date: { $lte: range.to }, to_date: { $gte: range.from } });
      holidayQuery.date = { $gte: range.from, $lte: range.to };
    }
    const [leaves, holidays] = await Promise.all([
      this.refs.collection('doctor_leave').find(leaveQuery as never).hint(LEAVES_BY_DOCTOR).toArray(),
      this.refs.collection('holiday').find(holidayQuery as never).hint(HOLIDAYS_BY_DATE).toArray(),
    ]);
    const shown = leaves.length + holidays.length > 0 || (await this.holdsDayBlocks());
    return new DayBlocks(leaves, holidays, shown);
  }

  /** Whether any leave or holiday record is held at all. */
  private async holdsDayBlocks(): Promise<boolean> {
    const [leave, holiday] = await Promise.all([
      this.refs.collection('doctor_leave').findOne({ deleted: false } as never, { projection: { _id: 1 } }),
      this.refs.collection('holiday').findOne({ deleted: false } as never, { projection: { _id: 1 } }),
    ]);
    return leave !== null || holiday !== null;
  }

  /**
   * Visible sessions that fall on their doctor's leave or their branch's
   * holiday, within the list's other filters, each with what blocks it; kept
   * like the list.
   */
  listConflicts<T>(filter: SessionListFilter, present: (views: Record<string, unknown>[]) => T): Promise<T> {
    return this.cache.get(SESSIONS_SCOPE, `conflicts:${JSON.stringify(filter)}`, async () => {
      const blocks = await this.dayBlocks(filter.date ? { from: filter.date, to: filter.date } : undefined, filter.doctor_id ? [filter.doctor_id] : undefined);
      const found = new Map<number, SessionDoc>();
      const add = (docs: SessionDoc[]) => docs.forEach((d) => found.set(d.id, d));
      for (const span of blocks.leaveSpans()) {
        const dates = filter.date ?? { $gte: span.from, $lte: span.to };
        add(await this.sessions.find(await this.visible({ doctor_id: span.doctor_id, session_date: dates })).hint('sessions_by_doctor_date').toArray());
      }
      for (const dates of inChunks(blocks.holidayDates())) {
        add(await this.sessions.find(await this.visible({ session_date: { $in: dates } })).hint('sessions_by_date').toArray());
      }
      const conflicting = [...found.values()].filter(
        (d) =>
          (filter.store_id === undefined || d.store_id === filter.store_id) &&
          (filter.doctor_id === undefined || d.doctor_id === filter.doctor_id) &&
          (filter.date === undefined || d.session_date === filter.date) &&
          blocks.blocks(d.doctor_id, d.store_id, d.session_date),
      );
      const views = await this.views(conflicting);
      return present(views.map((view, i) => ({ ...view, ...blocks.of(conflicting[i].doctor_id, conflicting[i].store_id, conflicting[i].session_date) })));
    });
  }

  /** Runs whose sessions are not shown: in progress, failed, or rolled back recently (see ZOMBIE_WINDOW_MS). */
  private async hiddenRuns(): Promise<string[]> {
    // Two queries rather than one $or, which the embedded server answers by reading every run.
    const [unfinished, rolledBack] = await Promise.all([
      this.runs.find({ status: { $in: ['running', 'failed'] } }, { projection: { _id: 1 } }).toArray(),
      this.recentlyRolledBack(),
    ]);
    return [...unfinished, ...rolledBack].map((r) => r._id);
  }

  private recentlyRolledBack(): Promise<Array<{ _id: string }>> {
    return this.runs
      .find({ status: 'rolled_back', finished_at: { $gt: new Date(Date.now() - ZOMBIE_WINDOW_MS) } }, { projection: { _id: 1 } })
      .toArray();
  }

  private async visible(query: Filter<SessionDoc>): Promise<Filter<SessionDoc>> {
    const hidden = await this.hiddenRuns();
    return hidden.length > 0 ? { ...query, run_id: { $nin: hidden } } : query;
  }

  async findVisible(id: number): Promise<SessionDoc | null> {
    return this.sessions.findOne(await this.visible({ _id: docKey(id) }));
  }

  /**
   * Visible sessions as the API shows them, passed through `present` once per
   * version of the data and kept (so a list is not re-sorted and re-serialized per read).
   */
  list<T>(filter: SessionListFilter, present: (views: Record<string, unknown>[]) => T): Promise<T> {
    return this.cache.get(SESSIONS_SCOPE, JSON.stringify(filter), async () => {
      const query: Filter<SessionDoc> = {};
      if (filter.store_id !== undefined) query.store_id = filter.store_id;
      if (filter.doctor_id !== undefined) query.doctor_id = filter.doctor_id;
      if (filter.date !== undefined) query.session_date = filter.date;
      return present(await this.views(await this.sessions.find(await this.visible(query)).toArray()));
    });
  }

  /** After anything a session read shows has changed: a new version of the sessions' cache scope. */
  bumpCacheVersion(): Promise<void> {
    return this.cache.bump(SESSIONS_SCOPE);
  }

  /** Visible sessions of the given doctors on the given dates, for the preview's `exists`. */
  async existingSlots(doctorIds: number[], fromDate: string, toDate: string): Promise<Set<string>> {
    if (doctorIds.length === 0) return new Set();
    const docs = await this.sessions
      .find(await this.visible({ doctor_id: { $in: doctorIds }, session_date: { $gte: fromDate, $lte: toDate } }), {
        projection: { doctor_id: 1, session_date: 1, session_no: 1 },
      })
      .toArray();
    return new Set(docs.map((d) => slotKey(d.doctor_id, d.session_date, d.session_no)));
  }

  /** Linked appointments that are not cancelled, per session id. */
  async bookedCounts(sessionIds: number[]): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    // In slices: a year of sessions would exceed what one query may list (see inChunks).
    for (const ids of inChunks(sessionIds)) {
      const appointments = await this.refs
        .collection('appointment')
        .find({ session_id: { $in: ids }, deleted: false }, { projection: { session_id: 1, status: 1 } })
        .toArray();
      for (const a of appointments) {
        if (isActiveAppointment(a.status)) counts.set(a.session_id, (counts.get(a.session_id) ?? 0) + 1);
      }
    }
    return counts;
  }

  /** Sessions as the API returns them: joined with doctor, store and bookings, status derived. */
  async views(docs: SessionDoc[]): Promise<Record<string, unknown>[]> {
    const [doctors, stores, booked] = await Promise.all([
      this.refs.many('doctor', docs.map((d) => d.doctor_id)),
      this.refs.many('store', docs.map((d) => d.store_id)),
      this.bookedCounts(docs.map((d) => d.id)),
    ]);
    return docs.map((doc) => {
      const doctor = doctors.get(doc.doctor_id);
      const bookedCount = booked.get(doc.id) ?? 0;
      return {
        id: doc.id,
        doctor_id: doc.doctor_id,
        store_id: doc.store_id,
        session_date: doc.session_date,
        start_time: doc.start_time,
        end_time: doc.end_time,
        max_patients: doc.max_patients,
        session_no: doc.session_no,
        status: displayStatus(doc.status, doc.max_patients, bookedCount),
        created_at: this.clock.timestamp(doc.created_at),
        doctor_name: doctor?.name ?? null,
        reg_no: doctor?.reg_no ?? null,
        specialization: doctor?.specialization ?? null,
        channeling_fee: doctor?.channeling_fee ?? null,
        store_name: stores.get(doc.store_id)?.name ?? null,
        booked_count: bookedCount,
      };
    });
  }

  async create(fields: NewSessionDoc, correlationId: string): Promise<SessionDoc> {
    try {
      const created = await withFreshId(this.ids, COLLECTION, this.sessions, async (id) => {
        const doc = this.buildDoc(id, fields);
        const [view] = await this.views([doc]);
        await this.outbox.record(
          { subject: EventSubjects.sessionCreated, data: { session: view }, collection: COLLECTION, key: doc._id, correlationId },
          (eventId) => this.sessions.insertOne({ ...doc, _event_ids: [eventId] }),
        );
        return doc;
      });
      await this.bumpCacheVersion();
      return created;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw conflict(MESSAGES.duplicate);
      throw err;
    }
  }

  async update(existing: SessionDoc, changes: SessionChanges, correlationId: string): Promise<void> {
    const [view] = await this.views([{ ...existing, ...changes }]);
    try {
      await this.outbox.record(
        { subject: EventSubjects.sessionUpdated, data: { session: view }, collection: COLLECTION, key: existing._id, correlationId },
        async (eventId) => {
          const result = await this.sessions.updateOne(
            { _id: existing._id },
            { $set: { ...changes, _event_ids: withEventId(existing._event_ids, eventId) } },
          );
          if (result.matchedCount === 0) throw notFound(MESSAGES.notFound);
        },
      );
    } catch (err) {
      if (isDuplicateKeyError(err)) throw conflict(MESSAGES.duplicate);
      throw err;
    }
    await this.bumpCacheVersion();
  }

  async remove(existing: SessionDoc, correlationId: string): Promise<void> {
    const [view] = await this.views([existing]);
    await this.outbox.record(
      { subject: EventSubjects.sessionDeleted, data: { session: view }, collection: COLLECTION, key: existing._id, proof: 'absent', correlationId },
      async () => {
        const result = await this.sessions.deleteOne({ _id: existing._id });
        if (result.deletedCount === 0) throw notFound(MESSAGES.notFound);
      },
    );
    await this.bumpCacheVersion();
  }

  private buildDoc(id: number, fields: NewSessionDoc): SessionDoc {
    return { _id: docKey(id), id, ...fields, created_at: new Date(), _event_ids: [] };
  }

  // Auto-creation runs: sessions are inserted hidden, then the run completes
  // with one single-document write, which makes them all visible at once.

  async startRun(runId: string, month: string): Promise<void> {
    await this.runs.insertOne({ _id: runId, status: 'running', month, started_at: new Date(), finished_at: null });
  }

  /**
   * Inserts the sessions of a run with one write, and answers for each: the
   * session, 'exists' when its slot is taken, or the Error of that row. Rows
   * the write refused as duplicates are settled together (settleTakenSlots).
   * An error of the whole write is thrown.
   */
  async insertAllForRun(runId: string, rows: NewSessionDoc[]): Promise<Array<SessionDoc | 'exists' | Error>> {
    if (rows.length === 0) return [];
    const ids = await this.ids.nextMany(COLLECTION, rows.length);
    const docs = rows.map((fields, i) => ({ ...this.buildDoc(ids[i], fields), run_id: runId }));
    const refused = await this.insertRefusing(docs);
    const results: Array<SessionDoc | 'exists' | Error> = docs.map((doc, i) => {
      const error = refused.get(i);
      if (error === undefined || isDuplicateKeyError(error)) return doc;
      return new Error(String((error as { errmsg?: string }).errmsg ?? 'write refused'));
    });
    const duplicates = [...refused.keys()].filter((i) => isDuplicateKeyError(refused.get(i)));
    const settled = await this.settleTakenSlots(runId, duplicates.map((i) => rows[i]));
    duplicates.forEach((i, k) => (results[i] = settled[k]));
    return results;
  }

  /**
   * Inserts sessions without stopping at a refused one, in slices so that no
   * single write of a large month outlasts the driver's socket timeout on a
   * busy server, and answers the write error of each refused document by index.
   */
  private async insertRefusing(docs: SessionDoc[]): Promise<Map<number, unknown>> {
    const refused = new Map<number, unknown>();
    for (let from = 0; from < docs.length; from += WRITE_SLICE) {
      try {
        await this.sessions.insertMany(docs.slice(from, from + WRITE_SLICE), { ordered: false });
      } catch (err) {
        if (!(err instanceof MongoBulkWriteError) || !err.writeErrors) throw err;
        for (const writeError of Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors]) refused.set(from + writeError.index, writeError);
      }
    }
    return refused;
  }

  /**
   * Rows of a run refused as duplicates, with a few queries for all of them
   * (a month retried after a failed run can hold thousands, when the failed
   * run's insert landed late): a slot held by a session of a failed or
   * rolled-back run is freed and filled anew, a slot held otherwise 'exists',
   * and what is still refused (a slot taken meanwhile, an id drawn twice) goes
   * through insertForRun.
   *
   * A held slot is freed by deleting its holder rather than taking the holder
   * over: a session's run never changes, so the janitor's deletion of a dead
   * run's sessions (which the embedded server does as read, then delete by
   * _id) can never remove a session a live run has made its own.
   */
  private async settleTakenSlots(runId: string, rows: NewSessionDoc[]): Promise<Array<SessionDoc | 'exists'>> {
    if (rows.length === 0) return [];
    const dates = rows.map((r) => r.session_date).sort();
    const holders = await this.sessions
      .find({ doctor_id: { $in: [...new Set(rows.map((r) => r.doctor_id))] }, session_date: { $gte: dates[0], $lte: dates[dates.length - 1] } })
      .toArray();
    const holderOf = new Map(holders.map((h) => [heldSlotKey(h), h]));
    const runIds = [...new Set(holders.map((h) => h.run_id).filter((id): id is string => Boolean(id)))];
    const deadRuns = new Set(
      runIds.length === 0 ? [] : (await this.runs.find({ _id: { $in: runIds }, status: { $in: ['failed', 'rolled_back'] } }).toArray()).map((r) => r._id),
    );
    const isDead = (holder: SessionDoc | undefined) => Boolean(holder?.run_id && deadRuns.has(holder.run_id));
    const results: Array<SessionDoc | 'exists' | undefined> = rows.map((fields) => {
      const holder = holderOf.get(heldSlotKey(fields));
      return holder && !isDead(holder) ? 'exists' : undefined;
    });
    await deleteByKeys(this.sessions, holders.filter(isDead).map((h) => h._id));
    const free = results.flatMap((result, k) => (result === undefined ? [k] : []));
    if (free.length > 0) {
      const ids = await this.ids.nextMany(COLLECTION, free.length);
      const docs = free.map((k, i) => ({ ...this.buildDoc(ids[i], rows[k]), run_id: runId }));
      const refused = await this.insertRefusing(docs);
      free.forEach((k, i) => {
        if (!refused.has(i)) results[k] = docs[i];
      });
    }
    const settled: Array<SessionDoc | 'exists'> = [];
    for (const [k, result] of results.entries()) settled.push(result ?? (await this.insertForRun(runId, rows[k])));
    return settled;
  }

  /**
   * Inserts one session of a run, or answers 'exists' when its slot is taken.
   * A slot held by a session of a failed or rolled-back run (a late insert of
   * that run) is freed and filled again: the month being created must be whole.
   */
  async insertForRun(runId: string, fields: NewSessionDoc, attempt = 1): Promise<SessionDoc | 'exists'> {
    try {
      return await withFreshId(this.ids, COLLECTION, this.sessions, async (id) => {
        const doc = { ...this.buildDoc(id, fields), run_id: runId };
        await this.sessions.insertOne(doc);
        return doc;
      });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const holder = await this.sessions.findOne({
        doctor_id: fields.doctor_id,
        store_id: fields.store_id,
        session_date: fields.session_date,
        session_no: fields.session_no,
      });
      const holderRun = holder?.run_id ? await this.runs.findOne({ _id: holder.run_id }) : null;
      if (!holder || !holderRun || !['failed', 'rolled_back'].includes(holderRun.status)) return 'exists';
      // Freed and filled anew, never taken over (see settleTakenSlots).
      await this.sessions.deleteOne({ _id: holder._id, run_id: holder.run_id });
      return attempt < 3 ? this.insertForRun(runId, fields, attempt + 1) : 'exists';
    }
  }

  runCommitProof(runId: string): WriteProof {
    return { collection: 'auto_create_runs', filter: { _id: runId, status: 'completed' }, exists: true };
  }

  async completeRun(runId: string): Promise<void> {
    await this.runs.updateOne({ _id: runId }, { $set: { status: 'completed', finished_at: new Date() } });
    await this.bumpCacheVersion();
  }

  /** Removes what a run inserted and marks it rolled back. */
  async rollBackRun(runId: string): Promise<number> {
    await this.runs.updateOne({ _id: runId }, { $set: { status: 'failed' } });
    const { deletedCount } = await this.sessions.deleteMany({ run_id: runId });
    await this.runs.updateOne({ _id: runId }, { $set: { status: 'rolled_back', finished_at: new Date() } });
    await this.bumpCacheVersion();
    return deletedCount;
  }

  /**
   * Rolls back runs that failed, or whose process died, and could not clean
   * up after themselves; and deletes late inserts of recently rolled-back runs.
   */
  async rollBackAbandonedRuns(log: Logger): Promise<void> {
    const stale = [
      ...(await this.runs.find({ status: 'failed' }).toArray()),
      ...(await this.runs.find({ status: 'running', started_at: { $lt: new Date(Date.now() - RUN_LEASE_MS) } }).toArray()),
    ];
    for (const run of stale) {
      const removed = await this.rollBackRun(run._id);
      log.warn({ run_id: run._id, month: run.month, removed }, 'abandoned auto-creation run rolled back');
    }
    const recent = await this.recentlyRolledBack();
    if (recent.length === 0) return;
    const { deletedCount } = await this.sessions.deleteMany({ run_id: { $in: recent.map((r) => r._id) } });
    if (deletedCount > 0) log.warn({ removed: deletedCount }, 'late inserts of rolled-back runs removed');
  }
}

export function slotKey(doctorId: number, sessionDate: string, sessionNo: number): string {
  return `${doctorId}:${sessionDate}:${sessionNo}`;
}

/** The unique slot of a session: doctor, branch, date and number (session_slot_unique). */
function heldSlotKey(s: Pick<SessionDoc, 'doctor_id' | 'store_id' | 'session_date' | 'session_no'>): string {
  return `${s.doctor_id}:${s.store_id}:${s.session_date}:${s.session_no}`;
}
