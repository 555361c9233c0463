/**
 * Auto-creation runs: a month's sessions are inserted hidden under a run, then
 * the run completes with one single-document write, which makes them all
 * visible at once. A run that fails is rolled back: its sessions are deleted.
 */
import type { Collection } from 'mongodb';
import { itemAt, type Logger } from '@clinic/service-kit';
import type { IdAllocator, WriteProof } from '@clinic/service-kit/storage';
import { deleteByKeys, isDuplicateKeyError, withFreshId, writeErrorsOf } from './database-quirks';
import { heldSlotKey, RUNS, SESSIONS, sessionDoc } from './documents';
import type { NewSessionDoc, RunDoc, SessionDoc } from '../domain/session';

/** Sessions one insert writes at most. */
const WRITE_SLICE = 500;
/** A run still "running" after this long belongs to a process that died. */
const RUN_LEASE_MS = 5 * 60_000;
/**
 * A write that timed out on our side may still be executed by the server
 * later (a "zombie" insert), after its run was rolled back. For this long
 * after a rollback, the run's sessions stay hidden and are deleted again.
 */
const ZOMBIE_WINDOW_MS = 60 * 60_000;

/** What the insert of a run answers for one session: stored, its slot taken, or the error of that row. */
export type RunInsertResult = SessionDoc | 'exists' | Error;

export class AutoCreateRuns {
  constructor(
    private readonly sessions: Collection<SessionDoc>,
    private readonly runs: Collection<RunDoc>,
    private readonly ids: IdAllocator,
    /** Marks every cached session read as stale. */
    private readonly bumpCacheVersion: () => Promise<void>,
  ) {}

  async start(runId: string, month: string): Promise<void> {
    await this.runs.insertOne({ _id: runId, status: 'running', month, started_at: new Date(), finished_at: null });
  }

  /** Runs whose sessions are not shown: in progress, failed, or rolled back recently (see ZOMBIE_WINDOW_MS). */
  async hidden(): Promise<string[]> {
    // Two queries rather than one $or, which the embedded server answers by reading every run.
    const [unfinished, rolledBack] = await Promise.all([
      this.runs.find({ status: { $in: ['running', 'failed'] } }, { projection: { _id: 1 } }).toArray(),
      this.recentlyRolledBack(),
    ]);
    return [...unfinished, ...rolledBack].map((r) => r._id);
  }

  private recentlyRolledBack(): Promise<Array<{ _id: string }>> {
    return this.runs
      .find(
        { status: 'rolled_back', finished_at: { $gt: new Date(Date.now() - ZOMBIE_WINDOW_MS) } },
        { projection: { _id: 1 } },
      )
      .toArray();
  }

  /**
   * The ids of a run's sessions, drawn at once: a slice's insert then waits
   * for no counter write, which would queue behind the previous slice's event
   * records on the embedded server.
   */
  drawIds(count: number): Promise<number[]> {
    return this.ids.nextMany(SESSIONS, count);
  }

  /**
   * Inserts the sessions of a run with one write (`ids`: one per row, from
   * drawIds), and answers for each: the session, 'exists' when its slot is
   * taken, or the Error of that row. Rows the write refused as duplicates are
   * settled together (settleTakenSlots). An error of the whole write is thrown.
   */
  async insertAll(runId: string, rows: NewSessionDoc[], ids: number[]): Promise<RunInsertResult[]> {
    if (rows.length === 0) return [];
    const docs = rows.map((fields, i) => ({ ...sessionDoc(itemAt(ids, i), fields), run_id: runId }));
    const refused = await this.insertRefusing(docs);
    const results: RunInsertResult[] = docs.map((doc, i) => {
      const error = refused.get(i);
      if (error === undefined || isDuplicateKeyError(error)) return doc;
      return new Error(String((error as { errmsg?: string }).errmsg ?? 'write refused'));
    });
    const duplicates = [...refused.keys()].filter((i) => isDuplicateKeyError(refused.get(i)));
    const settled = await this.settleTakenSlots(
      runId,
      duplicates.map((i) => itemAt(rows, i)),
    );
    // One settled result per row given, in order.
    duplicates.forEach((i, k) => {
      results[i] = itemAt(settled, k);
    });
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
        const errors = writeErrorsOf(err);
        if (!errors) throw err;
        for (const writeError of errors) refused.set(from + writeError.index, writeError);
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
   * through insertOne.
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
      .find({
        doctor_id: { $in: [...new Set(rows.map((r) => r.doctor_id))] },
        session_date: { $gte: dates[0], $lte: dates[dates.length - 1] },
      })
      .toArray();
    const holderOf = new Map(holders.map((h) => [heldSlotKey(h), h]));
    const runIds = [...new Set(holders.map((h) => h.run_id).filter((id): id is string => Boolean(id)))];
    const deadRuns = new Set(
      runIds.length === 0
        ? []
        : (await this.runs.find({ _id: { $in: runIds }, status: { $in: ['failed', 'rolled_back'] } }).toArray()).map(
            (r) => r._id,
          ),
    );
    const isDead = (holder: SessionDoc | undefined) => Boolean(holder?.run_id && deadRuns.has(holder.run_id));
    const results: Array<SessionDoc | 'exists' | undefined> = rows.map((fields) => {
      const holder = holderOf.get(heldSlotKey(fields));
      return holder && !isDead(holder) ? 'exists' : undefined;
    });
    await deleteByKeys(
      this.sessions,
      holders.filter(isDead).map((h) => h._id),
    );
    const free = results.flatMap((result, k) => (result === undefined ? [k] : []));
    if (free.length > 0) {
      const ids = await this.ids.nextMany(SESSIONS, free.length);
      const docs = free.map((k, i) => ({ ...sessionDoc(itemAt(ids, i), itemAt(rows, k)), run_id: runId }));
      const refused = await this.insertRefusing(docs);
      free.forEach((k, i) => {
        if (!refused.has(i)) results[k] = itemAt(docs, i);
      });
    }
    const settled: Array<SessionDoc | 'exists'> = [];
    // results holds one entry per row.
    for (const [k, result] of results.entries()) settled.push(result ?? (await this.insertOne(runId, itemAt(rows, k))));
    return settled;
  }

  /**
   * Inserts one session of a run, or answers 'exists' when its slot is taken.
   * A slot held by a session of a failed or rolled-back run (a late insert of
   * that run) is freed and filled again: the month being created must be whole.
   */
  private async insertOne(runId: string, fields: NewSessionDoc, attempt = 1): Promise<SessionDoc | 'exists'> {
    try {
      return await withFreshId(this.ids, SESSIONS, this.sessions, async (id) => {
        const doc = { ...sessionDoc(id, fields), run_id: runId };
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
      return attempt < 3 ? this.insertOne(runId, fields, attempt + 1) : 'exists';
    }
  }

  /** Several documents, one commit: the proof of each of a run's events is the run's completion. */
  commitProof(runId: string): WriteProof {
    return { collection: RUNS, filter: { _id: runId, status: 'completed' }, exists: true };
  }

  async complete(runId: string): Promise<void> {
    await this.runs.updateOne({ _id: runId }, { $set: { status: 'completed', finished_at: new Date() } });
    await this.bumpCacheVersion();
  }

  /** Removes what a run inserted and marks it rolled back. */
  async rollBack(runId: string): Promise<number> {
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
  async rollBackAbandoned(log: Logger): Promise<void> {
    const stale = [
      ...(await this.runs.find({ status: 'failed' }).toArray()),
      ...(await this.runs
        .find({ status: 'running', started_at: { $lt: new Date(Date.now() - RUN_LEASE_MS) } })
        .toArray()),
    ];
    for (const run of stale) {
      const removed = await this.rollBack(run._id);
      log.warn({ run_id: run._id, month: run.month, removed }, 'abandoned auto-creation run rolled back');
    }
    const recent = await this.recentlyRolledBack();
    if (recent.length === 0) return;
    const { deletedCount } = await this.sessions.deleteMany({ run_id: { $in: recent.map((r) => r._id) } });
    if (deletedCount > 0) log.warn({ removed: deletedCount }, 'late inserts of rolled-back runs removed');
  }
}
