/**
 * The sessions service's storage layer: what the domain code calls, and the
 * one place that knows how sessions and auto-creation runs are laid out,
 * indexed and read on both MongoDB and the embedded server.
 */
import type { Collection } from 'mongodb';
import type { RefKind } from '@clinic/contracts';
import type { ReferenceData, StorageDeps } from '@clinic/service-kit/storage';
import { RUNS, SESSION_REFS_SCOPE, SESSIONS, SESSIONS_SCOPE, type RunDoc, type SessionDoc } from './documents';
import { ensureSessionIndexes } from './indexes';
import { SessionQueries } from './queries';
import { AutoCreateRuns } from './runs';
import { SessionWrites } from './writes';

export { slotKey, type NewSessionDoc, type SessionDoc } from './documents';
export type { RunInsertResult } from './runs';

export class SessionStorage {
  readonly queries: SessionQueries;
  readonly writes: SessionWrites;
  readonly runs: AutoCreateRuns;
  private readonly sessions: Collection<SessionDoc>;
  private readonly runDocs: Collection<RunDoc>;

  constructor(
    private readonly deps: StorageDeps,
    private readonly refs: ReferenceData,
  ) {
    this.sessions = deps.db.collection<SessionDoc>(SESSIONS);
    this.runDocs = deps.db.collection<RunDoc>(RUNS);
    this.runs = new AutoCreateRuns(this.sessions, this.runDocs, deps.ids, () => this.bumpCacheVersion());
    this.queries = new SessionQueries(this.sessions, this.runs, refs, deps.cache, deps.clock);
    this.writes = new SessionWrites(this.sessions, this.queries, deps);
  }

  /** Indexes; before the service takes requests. */
  async prepare(): Promise<void> {
    await ensureSessionIndexes(this.sessions, this.runDocs, this.refs);
  }

  /**
   * A new version of the sessions' cache scope: after anything a session read
   * shows has changed (a run, or the doctors, stores and appointments joined in).
   */
  bumpCacheVersion(): Promise<void> {
    return this.deps.cache.bump(SESSIONS_SCOPE);
  }

  /** After a reference record is applied: session reads show doctors, stores and bookings. */
  referenceApplied(kind: RefKind): Promise<void> {
    return kind === 'doctor' || kind === 'store'
      ? this.deps.cache.bump(SESSIONS_SCOPE, SESSION_REFS_SCOPE)
      : this.bumpCacheVersion();
  }
}
