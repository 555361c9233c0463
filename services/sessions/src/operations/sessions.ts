/** Channeling-session operations: the spec's steps in order, over the storage layer. */
import {
  CHANNELING_MESSAGES,
  EventSubjects,
  SESSIONS_MESSAGES,
  success,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import {
  branchesOf,
  EncodedReply,
  foundInBranch,
  fail,
  pageOfList,
  pathId,
  reachesBranch,
  requireBranch,
  requireCurrent,
  taggedReply,
  withNewTag,
} from '@clinic/service-kit';
import type { ClinicClock, HandlerContext } from '@clinic/service-kit';
import type { ReferenceData } from '@clinic/service-kit/storage';
import {
  changesFor,
  parseListQuery,
  parseMaxPatients,
  parseNewSession,
  parseSessionChanges,
  requireSessionBody,
} from '../domain/rules';
import type { SessionStorage } from '../storage';
import type { SessionDoc } from '../domain/session';
import type { AppointmentEvents } from '../events/appointment-events';
import { cancelWaiting, openCount } from '../domain/appointments';

export class SessionOperations {
  constructor(
    private readonly storage: SessionStorage,
    private readonly refs: ReferenceData,
    private readonly events: AppointmentEvents,
    private readonly clock: ClinicClock,
  ) {}

  async list(request: ServiceRequest, ctx: HandlerContext): Promise<EncodedReply> {
    const filter = parseListQuery(request.query);
    // A token limited to some branches lists theirs: the one it names, or all of them.
    const branches = branchesOf(ctx);
    if (filter.store_id !== undefined) requireBranch(ctx, filter.store_id);
    else if (branches !== null) filter.store_ids = branches;
    const queries = this.storage.queries;
    const read = filter.conflicts ? queries.listConflicts.bind(queries) : queries.list.bind(queries);
    const present = (views: Record<string, unknown>[]) => {
      const sessions = views
        .filter((s) => filter.status === undefined || s.status === filter.status)
        .sort(
          (a, b) =>
            String(b.session_date).localeCompare(String(a.session_date)) ||
            String(a.start_time).localeCompare(String(b.start_time)) ||
            Number(a.id) - Number(b.id),
        );
      if (!filter.page) return new EncodedReply(success(200, { sessions }));
      const { items, fields } = pageOfList(sessions, filter.page);
      return new EncodedReply(success(200, { sessions: items, ...fields }));
    };
    return read(filter, present, ctx.share);
  }

  async get(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'session_id', 'SESSION_NOT_FOUND');
    // Kept per version with its tag: a hot read neither reads the database nor digests the body again.
    const found = await this.storage.queries.one(id, (session) => taggedReply(success(200, { session })), ctx.share);
    return foundInBranch(ctx, found, 'SESSION_NOT_FOUND').value;
  }

  /** A session as its read answers it (with its doctor, branch and bookings): the body its ETag is the digest of. */
  private async representation(doc: SessionDoc): Promise<ServiceReply> {
    const [session] = await this.storage.queries.views([doc]);
    return success(200, { session });
  }

  /** With If-Match, whether the caller has read the session as it is (412 when not). */
  private requireCurrent(ctx: HandlerContext, existing: SessionDoc): Promise<void> {
    return requireCurrent(ctx.ifMatch, async () => (await this.representation(existing)).body);
  }

  async create(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const input = parseNewSession(request.body, this.clock.today());
    const doctor = await this.refs.get('doctor', input.doctor_id);
    // The doctor's branch is the session's: a doctor of a branch the caller does not reach is not found either.
    if (doctor?.status !== 'Active' || !reachesBranch(ctx, doctor.store_id)) throw fail('DOCTOR_NOT_FOUND');
    if (doctor.store_id === null) throw fail('DOCTOR_NO_BRANCH');
    const maxPatients = parseMaxPatients(input.max_patients_input);
    const doc = await this.storage.writes.create(
      {
        doctor_id: input.doctor_id,
        store_id: doctor.store_id,
        session_date: input.session_date,
        session_no: input.session_no,
        start_time: input.start_time,
        end_time: input.end_time,
        max_patients: maxPatients,
        status: input.status,
      },
      ctx.correlationId,
    );
    return success(201, { message: SESSIONS_MESSAGES.created, session_id: doc.id });
  }

  async update(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const body = requireSessionBody(request.body);
    const id = pathId(request, 'session_id', 'SESSION_NOT_FOUND');
    // A session that does not exist (or is of another branch) is not found before its changes are checked.
    const written = await this.storage.writes.changeSession(id, async (existing) => {
      foundInBranch(ctx, existing, 'SESSION_NOT_FOUND');
      const asked = parseSessionChanges(body);
      // Bad input is refused as such (400) whatever If-Match says; only a valid change can be stale (412).
      await this.requireCurrent(ctx, existing);
      const changes = changesFor(existing.status, asked);
      if (Object.keys(changes).length === 0) return null;
      // Closing a session cancels the bookings still waiting; what they paid is theirs to get back (billing).
      const closing = changes.status === 'cancelled';
      const dropped = closing ? cancelWaiting(existing, CHANNELING_MESSAGES.sessionCancelled) : null;
      return {
        set: { ...changes, ...(dropped?.set ?? {}) },
        event: async (after) => {
          const [session] = await this.storage.queries.views([after]);
          const alongside = closing
            ? [
                { subject: EventSubjects.sessionCancelled, data: { session }, correlationId: ctx.correlationId },
                ...(await this.events.events(EventSubjects.appointmentCancelled, after, dropped!.cancelled, ctx)),
              ]
            : [];
          return {
            subject: EventSubjects.sessionUpdated,
            data: { session },
            correlationId: ctx.correlationId,
            alongside,
          };
        },
      };
    });
    const reply = success(200, { message: SESSIONS_MESSAGES.updated, session_id: id });
    return written && written !== 'unchanged' ? withNewTag(reply, await this.representation(written)) : reply;
  }

  /** POST /sessions/{id}/complete: stored completed; patients still only booked did not come. */
  async complete(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'session_id', 'SESSION_NOT_FOUND');
    await this.storage.writes.changeSession(id, async (existing) => {
      foundInBranch(ctx, existing, 'SESSION_NOT_FOUND');
      if (existing.status === 'completed') return null;
      if (existing.status === 'cancelled') throw fail('SESSION_CLOSED');
      const absent = (existing.appointments ?? []).filter((a) => a.status === 'booked');
      const appointments = (existing.appointments ?? []).map((a) =>
        a.status === 'booked' ? { ...a, status: 'absent' as const } : a,
      );
      return {
        set: { status: 'completed', appointments, open_count: openCount(appointments) },
        event: async (after) => {
          const [session] = await this.storage.queries.views([after]);
          const marked = absent.map((a) => ({ ...a, status: 'absent' as const }));
          return {
            subject: EventSubjects.sessionCompleted,
            data: { session },
            correlationId: ctx.correlationId,
            alongside: await this.events.events(EventSubjects.appointmentAbsent, after, marked, ctx),
          };
        },
      };
    });
    return success(200, { message: CHANNELING_MESSAGES.completed, session_id: id });
  }

  async delete(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'session_id', 'SESSION_NOT_FOUND');
    await this.storage.writes.remove(id, ctx.correlationId, async (existing) => {
      foundInBranch(ctx, existing, 'SESSION_NOT_FOUND');
      await this.requireCurrent(ctx, existing);
      const active = ((await this.storage.queries.bookedCounts([id])).get(id) ?? 0) + openCount(existing.appointments);
      if (active > 0) throw fail('SESSION_HAS_APPOINTMENTS', SESSIONS_MESSAGES.deleteRefusal(active));
    });
    return success(200, { message: SESSIONS_MESSAGES.deleted, session_id: id });
  }
}
