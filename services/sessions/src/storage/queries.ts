/** Reads of sessions: one session, the lists, the preview's slots, bookings, leaves and holidays. */
import type { Collection, Filter } from 'mongodb';
import type { DoctorLeaveRecord, DoctorRecord } from '@clinic/contracts';
import { itemAt, type ClinicClock } from '@clinic/service-kit';
import {
  BatchedFinds,
  type ReferenceCache,
  type ReferenceData,
  type Share,
  type VersionedCache,
} from '@clinic/service-kit/storage';
import { docKey, inChunks } from './database-quirks';
import { DayBlocks, type DayBlock } from '../domain/blocks';
import { isActiveAppointment, type SessionListFilter } from '../domain/rules';
import type { SessionDoc, ShowSession } from '../domain/session';
import { SESSIONS_SCOPE, slotKey } from './documents';
import { HOLIDAYS_BY_DATE, LEAVES_BY_DOCTOR, SESSION_INDEXES } from './indexes';
import type { AutoCreateRuns } from './runs';

type View = Record<string, unknown>;
type OneSession<T> = { store_id: number; value: T } | null;

export class SessionQueries {
  /** Finds of one session made at about the same time, in one query begun after each (a rush's refusals). */
  private readonly batchedVisible: BatchedFinds<SessionDoc>;

  constructor(
    private readonly sessions: Collection<SessionDoc>,
    private readonly runs: AutoCreateRuns,
    private readonly refs: ReferenceData,
    /** The doctors and branches views join. */
    private readonly joined: ReferenceCache,
    private readonly cache: VersionedCache,
    private readonly clock: ClinicClock,
    private readonly show: ShowSession,
  ) {
    this.batchedVisible = new BatchedFinds(sessions, () => this.visible({}));
  }

  /** A session that exists and is not hidden in an unfinished run. */
  async findVisible(id: number): Promise<SessionDoc | null> {
    return this.sessions.findOne(await this.visible({ _id: docKey(id) }));
  }

  /** findVisible, sharing one query with the finds made while another is in flight: never a read begun before it. */
  findVisibleShared(id: number): Promise<SessionDoc | null> {
    return this.batchedVisible.find(docKey(id));
  }

  /** A visible session's branch and the session as the API shows it, through `present`; kept like the lists. */
  one<T>(id: number, present: (session: Record<string, unknown>) => T, share?: Share): Promise<OneSession<T>> {
    const load = async () => {
      const doc = await this.findVisible(id);
      if (!doc) return null;
      const [session] = await this.views([doc]);
      return { store_id: doc.store_id, value: present(session!) };
    };
    return this.cache.get(SESSIONS_SCOPE, `one:${id}`, load, share);
  }

  /**
   * Visible sessions as the API shows them, passed through `present` once per
   * version of the data and kept (so a list is not re-sorted and re-serialized per read).
   */
  list<T>(filter: SessionListFilter, present: (views: Record<string, unknown>[]) => T, share?: Share): Promise<T> {
    const load = async () => {
      const query: Filter<SessionDoc> = {};
      if (filter.store_id !== undefined) query.store_id = filter.store_id;
      else if (filter.store_ids !== undefined) query.store_id = { $in: [...filter.store_ids] };
      if (filter.doctor_id !== undefined) query.doctor_id = filter.doctor_id;
      if (filter.date !== undefined) query.session_date = filter.date;
      // The hidden runs are read alongside the sessions rather than after them.
      const [docs, hidden] = await Promise.all([
        this.sessions.find(query, { projection: { appointments: 0 } }).toArray(),
        this.runs.hidden(),
      ]);
      return present(await this.views(docs.filter(hiding(hidden).shows)));
    };
    return this.cache.get(SESSIONS_SCOPE, JSON.stringify(filter), load, share);
  }

  /**
   * Visible sessions that fall on their doctor's leave or their branch's
   * holiday, within the list's other filters, each with what blocks it; kept
   * like the list.
   */
  listConflicts<T>(filter: SessionListFilter, present: (views: View[]) => T, share?: Share): Promise<T> {
    const load = async () => {
      const blocks = await this.dayBlocks(
        filter.date ? { from: filter.date, to: filter.date } : undefined,
        filter.doctor_id ? [filter.doctor_id] : undefined,
      );
      const visible = await this.visibility();
      const found = new Map<number, SessionDoc>();
      const add = (docs: SessionDoc[]) => {
        for (const d of docs) found.set(d.id, d);
      };
      for (const span of blocks.leaveSpans()) {
        const dates = filter.date ?? { $gte: span.from, $lte: span.to };
        add(
          await this.sessions
            .find(visible({ doctor_id: span.doctor_id, session_date: dates }))
            .hint(SESSION_INDEXES.byDoctorDate)
            .toArray(),
        );
      }
      for (const dates of inChunks(blocks.holidayDates())) {
        add(
          await this.sessions
            .find(visible({ session_date: { $in: dates } }))
            .hint(SESSION_INDEXES.byDate)
            .toArray(),
        );
      }
      const conflicting = [...found.values()].filter(
        (d) =>
          (filter.store_id === undefined || d.store_id === filter.store_id) &&
          (filter.store_ids === undefined || filter.store_ids.includes(d.store_id)) &&
          (filter.doctor_id === undefined || d.doctor_id === filter.doctor_id) &&
          (filter.date === undefined || d.session_date === filter.date) &&
          blocks.blocks(d.doctor_id, d.store_id, d.session_date),
      );
      const views = await this.views(conflicting);
      return present(
        views.map((view, i) => {
          // views() answers one view per session, in order.
          const d = itemAt(conflicting, i);
          return { ...view, ...blocks.of(d.doctor_id, d.store_id, d.session_date) };
        }),
      );
    };
    return this.cache.get(SESSIONS_SCOPE, `conflicts:${JSON.stringify(filter)}`, load, share);
  }

  /** Sessions as the API returns them: joined with doctor, store and bookings, status derived. */
  async views(docs: SessionDoc[]): Promise<Record<string, unknown>[]> {
    const [doctors, stores, booked] = await Promise.all([
      this.joined.many(
        'doctor',
        docs.map((d) => d.doctor_id),
      ),
      this.joined.many(
        'store',
        docs.map((d) => d.store_id),
      ),
      this.bookedCounts(docs.map((d) => d.id)),
    ]);
    return docs.map((doc) =>
      this.show(
        doc,
        {
          doctor: doctors.get(doc.doctor_id),
          branchName: stores.get(doc.store_id)?.name ?? null,
          booked: booked.get(doc.id) ?? 0,
        },
        this.clock,
      ),
    );
  }

  /** A doctor's visible sessions in a date range that still have appointments waiting (a leave cancels them). */
  async withWaitingAppointments(doctorId: number, from: string, to: string): Promise<SessionDoc[]> {
    const docs = await this.sessions
      .find(await this.visible({ doctor_id: doctorId, session_date: { $gte: from, $lte: to }, status: 'active' }))
      .hint(SESSION_INDEXES.byDoctorDate)
      .toArray();
    return docs.filter((d) => d.appointments?.some((a) => a.status === 'booked' || a.status === 'arrived'));
  }

  /** A doctor's leave as it stands now: null when unknown or deleted. */
  leave(id: number): Promise<DoctorLeaveRecord | null> {
    return this.refs.get('doctor_leave', id);
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

  /** Every doctor the reference data holds (not deleted), for the preview and auto-creation. */
  async liveDoctors(): Promise<DoctorRecord[]> {
    return this.refs.collection('doctor').find({ deleted: false }).toArray();
  }

  /**
   * The leaves and holidays that touch the dates `from`..`to` (every one
   * without a range), for these doctors (every doctor without a list).
   */
  async dayBlocks(range?: { from: string; to: string }, doctorIds?: number[]): Promise<DayBlocks> {
    const { leaves, holidays } = await this.blockingRecords(range, doctorIds);
    const shown = leaves.length + holidays.length > 0 || (await this.holdsDayBlocks());
    return new DayBlocks(leaves, holidays, shown);
  }

  /** What keeps a session's day free of bookings: its doctor's leave, its branch's holiday. */
  async blocksOf(session: Pick<SessionDoc, 'doctor_id' | 'store_id' | 'session_date'>): Promise<DayBlock> {
    const day = session.session_date;
    const { leaves, holidays } = await this.blockingRecords({ from: day, to: day }, [session.doctor_id]);
    return new DayBlocks(leaves, holidays, true).of(session.doctor_id, session.store_id, day);
  }

  private async blockingRecords(range?: { from: string; to: string }, doctorIds?: number[]) {
    const leaveQuery: Record<string, unknown> = { deleted: false };
    const holidayQuery: Record<string, unknown> = { deleted: false };
    if (doctorIds) leaveQuery.doctor_id = { $in: doctorIds };
    if (range) {
      Object.assign(leaveQuery, { from_date: { $lte: range.to }, to_date: { $gte: range.from } });
      holidayQuery.date = { $gte: range.from, $lte: range.to };
    }
    const [leaves, holidays] = await Promise.all([
      this.refs
        .collection('doctor_leave')
        .find(leaveQuery as never)
        .hint(LEAVES_BY_DOCTOR)
        .toArray(),
      this.refs
        .collection('holiday')
        .find(holidayQuery as never)
        .hint(HOLIDAYS_BY_DATE)
        .toArray(),
    ]);
    return { leaves, holidays };
  }

  /** Whether any leave or holiday record is held at all. */
  private async holdsDayBlocks(): Promise<boolean> {
    const [leave, holiday] = await Promise.all([
      this.refs.collection('doctor_leave').findOne({ deleted: false } as never, { projection: { _id: 1 } }),
      this.refs.collection('holiday').findOne({ deleted: false } as never, { projection: { _id: 1 } }),
    ]);
    return leave !== null || holiday !== null;
  }

  private async visible(query: Filter<SessionDoc>): Promise<Filter<SessionDoc>> {
    return (await this.visibility())(query);
  }

  /** What hides the sessions of unfinished runs from a query: one read of the runs, for any number of queries. */
  private async visibility(): Promise<(query: Filter<SessionDoc>) => Filter<SessionDoc>> {
    return hiding(await this.runs.hidden()).query;
  }
}

/**
 * The one rule of what the hidden runs (unfinished, or lately rolled back)
 * hide: their sessions. As a query condition, or as a test of sessions read
 * without it.
 */
function hiding(hiddenRuns: string[]) {
  const hidden = new Set(hiddenRuns);
  return {
    query: (query: Filter<SessionDoc>): Filter<SessionDoc> =>
      hidden.size > 0 ? { ...query, run_id: { $nin: hiddenRuns } } : query,
    shows: (doc: SessionDoc): boolean => !doc.run_id || !hidden.has(doc.run_id),
  };
}
