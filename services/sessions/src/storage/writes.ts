/** Writes of single sessions: create, update and delete, each through the one write path (RecordWriter) with its event. */
import type { Collection } from 'mongodb';
import { EventSubjects } from '@clinic/contracts';
import type { NotFoundCode } from '@clinic/service-kit';
import { RecordWriter, type RecordWrite, type StorageDeps } from '@clinic/service-kit/storage';
import type { SessionChanges } from '../domain/rules';
import { SESSIONS, SESSIONS_SCOPE, sessionDoc } from './documents';
import type { NewSessionDoc, SessionDoc } from '../domain/session';
import type { SessionQueries } from './queries';

export class SessionWrites {
  private readonly records: RecordWriter<SessionDoc>;

  constructor(
    sessions: Collection<SessionDoc>,
    private readonly queries: SessionQueries,
    deps: StorageDeps,
  ) {
    this.records = new RecordWriter({
      ...deps,
      collection: sessions,
      recordKind: 'session',
      counter: SESSIONS,
      find: (id) => queries.findVisible(id),
      notFound: 'SESSION_NOT_FOUND',
      // The doctor already holds a session in that slot (session_slot_unique).
      duplicate: 'SESSION_SLOT_TAKEN',
      written: () => deps.cache.bump(SESSIONS_SCOPE),
    });
  }

  create(fields: NewSessionDoc, correlationId: string): Promise<SessionDoc> {
    return this.records.insert(async (id) => {
      const doc = sessionDoc(id, fields);
      const [session] = await this.queries.views([doc]);
      return { doc, event: { subject: EventSubjects.sessionCreated, data: { session }, correlationId } };
    });
  }

  /** Changes a visible session (404 when there is none) as `check` says once it has seen it. */
  async update(
    id: number,
    correlationId: string,
    check: (existing: SessionDoc) => Promise<SessionChanges>,
  ): Promise<void> {
    await this.records.change(id, async (existing) => ({
      set: await check(existing),
      event: async (after) => {
        const [session] = await this.queries.views([after]);
        return { subject: EventSubjects.sessionUpdated, data: { session }, correlationId };
      },
    }));
  }

  /**
   * Any other change of a visible session, as `decide` says once it has seen it (its appointments: a booking, a
   * move, a cancellation), in one compare-and-set write; answers the session as written, or 'unchanged'.
   * `notFound`: the 404 of a missing session (an appointment's route answers APPOINTMENT_NOT_FOUND).
   */
  changeSession(
    id: number,
    decide: (existing: SessionDoc) => Promise<RecordWrite<SessionDoc> | null>,
    notFound: NotFoundCode = 'SESSION_NOT_FOUND',
    waitUntil?: number,
  ): Promise<SessionDoc | null | 'unchanged'> {
    return this.records.change(id, decide, notFound, waitUntil);
  }

  /** Deletes a visible session (404 when there is none) once `check` has accepted it. */
  async remove(id: number, correlationId: string, check: (existing: SessionDoc) => Promise<void>): Promise<void> {
    await this.records.change(id, async (existing) => {
      await check(existing);
      const [session] = await this.queries.views([existing]);
      return { remove: true, event: { subject: EventSubjects.sessionDeleted, data: { session }, correlationId } };
    });
  }
}
