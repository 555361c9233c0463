/**
 * The sessions service's storage layer: what the domain code calls, and the
 * one place that knows how sessions and auto-creation runs are laid out,
 * indexed and read on both MongoDB and the embedded server.
 */
import type { RefKind } from '@clinic/contracts';
import { ReferenceCache, type ReferenceData, type StorageDeps } from '@clinic/service-kit/storage';
import { bookingsSettled } from './booking-fences';
import { BookingKeys } from './booking-keys';
import { ensureCatalogueIndexes } from './database-quirks';
import { RUNS, SESSIONS, SESSIONS_SCOPE } from './documents';
import type { RunDoc, SessionDoc, ShowSession } from '../domain/session';
import { SESSIONS_INDEX_CATALOGUE } from './index-catalogue';
import { OBSOLETE_APPOINTMENT_INDEXES } from './indexes';
import { SessionQueries } from './queries';
import { AutoCreateRuns } from './runs';
import { SessionWrites } from './writes';

export { bookingFence } from './booking-fences';
export { slotKey } from './documents';
export type { RunInsertResult } from './runs';

export class SessionStorage {
  readonly queries: SessionQueries;
  readonly writes: SessionWrites;
  readonly runs: AutoCreateRuns;
  readonly bookingKeys: BookingKeys;
  /** The doctors and branches session views join, kept in the cache. */
  private readonly joined: ReferenceCache;

  constructor(
    private readonly deps: StorageDeps,
    private readonly refs: ReferenceData,
    /** How a session is shown (views/), as its reads keep it. */
    show: ShowSession,
  ) {
    const sessions = deps.db.collection<SessionDoc>(SESSIONS);
    this.runs = new AutoCreateRuns(sessions, deps.db.collection<RunDoc>(RUNS), deps.ids, () => this.bumpCacheVersion());
    this.joined = new ReferenceCache(refs, deps.cache, ['doctor', 'store']);
    this.queries = new SessionQueries(sessions, this.runs, refs, this.joined, deps.cache, deps.clock, show);
    this.writes = new SessionWrites(sessions, this.queries, deps);
    this.bookingKeys = new BookingKeys(deps.db);
  }

  /** The sessions database's indexes (index-catalogue.ts), less those no query uses any more; before requests. */
  async prepare(): Promise<void> {
    await ensureCatalogueIndexes(this.deps.db, SESSIONS_INDEX_CATALOGUE);
    const appointments = this.refs.collection('appointment');
    for (const name of OBSOLETE_APPOINTMENT_INDEXES) await appointments.dropIndex(name).catch(() => undefined);
  }

  /**
   * A new version of the sessions' cache scope: after anything a session read
   * shows has changed (a run, or the doctors, stores and appointments joined in).
   */
  bumpCacheVersion(): Promise<void> {
    return this.deps.cache.bump(SESSIONS_SCOPE);
  }

  /** A session's doctor and branch, as the reference data holds them now (kept in the cache). */
  async doctorAndBranch(session: Pick<SessionDoc, 'doctor_id' | 'store_id'>) {
    const [doctor, store] = await Promise.all([
      this.joined.get('doctor', session.doctor_id),
      this.joined.get('store', session.store_id),
    ]);
    return { doctor, store };
  }

  /** Once the doctor's bookings in flight have landed or been refused (booking-fences.ts). */
  bookingsSettled(doctorId: number): Promise<void> {
    return bookingsSettled(this.deps.outbox, doctorId);
  }

  /** After a reference record is applied: session reads show doctors, stores and bookings. */
  referenceApplied(kind: RefKind): Promise<void> {
    return this.joined.applied(kind, [SESSIONS_SCOPE]);
  }
}
