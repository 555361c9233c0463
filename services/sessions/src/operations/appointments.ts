/**
 * Channeling appointments' writes: a patient booked into a session, moved
 * through the session, cancelled. Each is one compare-and-set write of its
 * session, so a number is given once and never past the cap, across replicas.
 * Reads are appointment-reads.ts.
 */
import {
  CHANNELING_MESSAGES,
  EventSubjects,
  idOfAppointment,
  success,
  type AppointmentStatus,
  type EventSubject,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import {
  callerOf,
  fail,
  foundInBranch,
  idempotencyClaim,
  pathId,
  toCents,
  type ClinicClock,
  type HandlerContext,
} from '@clinic/service-kit';
import type { RecordWrite } from '@clinic/service-kit/storage';
import { BookingTurns } from './booking-turns';
import type { AppointmentEvents } from '../events/appointment-events';
import {
  appointmentKeyOf,
  parseAppointmentChanges,
  parseBooking,
  parseReason,
  type BookingInput,
} from '../domain/appointment-input';
import type { BillingClient } from '../billing-client';
import {
  checkDayOpen,
  checkMove,
  feeSplit,
  nextNumber,
  openCount,
  replaced,
  type AppointmentDoc,
} from '../domain/appointments';
import { bookingFence, type SessionStorage } from '../storage';
import type { SessionDoc } from '../domain/session';

const MOVE_EVENTS: Partial<Record<AppointmentStatus, EventSubject>> = {
  arrived: EventSubjects.appointmentArrived,
  consulted: EventSubjects.appointmentConsulted,
  absent: EventSubjects.appointmentAbsent,
  cancelled: EventSubjects.appointmentCancelled,
};

export class AppointmentOperations {
  constructor(
    private readonly storage: SessionStorage,
    private readonly billing: BillingClient,
    private readonly events: AppointmentEvents,
    private readonly clock: ClinicClock,
    private readonly turns = new BookingTurns(storage, clock),
  ) {}

  /** POST /sessions/{id}/appointments. */
  async book(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const sessionId = pathId(request, 'session_id', 'SESSION_NOT_FOUND');
    const input = parseBooking(request.body);
    const caller = callerOf(ctx);
    const claim = idempotencyClaim(ctx.idempotencyKey, caller, {
      session_id: sessionId,
      body: request.body,
    });
    const arrived = Date.now();
    await this.turns.refuseEarly(sessionId, input.source, claim, ctx);
    let booked: AppointmentDoc | undefined;
    let replayed = false;
    const after = await this.turns.inTurn(sessionId, arrived, input.source, claim, ctx, async (existing) => {
      foundInBranch(ctx, existing, 'SESSION_NOT_FOUND');
      // The key is the caller's across sessions: bound to its first request, refused with another.
      if (claim) await this.storage.bookingKeys.bind(claim, sessionId);
      const earlier = claim && existing.appointments?.find((a) => a.idempotency_key === claim.key);
      if (earlier) {
        if (earlier.request_hash !== claim.requestHash) throw fail('IDEMPOTENCY_KEY_REUSED');
        [booked, replayed] = [earlier, true];
        return null;
      }
      // A session full of its own bookings is refused before the others' are counted (the rush's many refusals).
      nextNumber(existing, input.source, this.clock.today(), 0);
      const external = (await this.storage.queries.bookedCounts([sessionId])).get(sessionId) ?? 0;
      const no = nextNumber(existing, input.source, this.clock.today(), external);
      booked = await this.newAppointment(existing, no, input, ctx);
      if (claim) Object.assign(booked, { idempotency_key: claim.key, request_hash: claim.requestHash });
      const appointments = [...(existing.appointments ?? []), booked];
      return {
        set: { appointments, open_count: openCount(appointments) },
        event: async (session) => ({
          ...(await this.event(EventSubjects.appointmentBooked, session, booked!, ctx)),
          fences: [bookingFence(existing.doctor_id)],
        }),
        // Once the fence is stored: a leave stored before this look refuses the booking, one stored after it waits
        // for the booking to land before it cancels the day's bookings (leave-cancellations.ts).
        guard: async () => checkDayOpen(await this.storage.queries.blocksOf(existing)),
      };
    });
    const session = after === 'unchanged' || after === null ? await this.visibleSession(sessionId) : after;
    const money = replayed ? await this.billing.balances([idOfAppointment(sessionId, booked!.no)], ctx) : null;
    return success(201, {
      message: CHANNELING_MESSAGES.booked,
      appointment: await this.events.withPayment(
        session,
        booked!,
        replayed ? (money?.values().next().value ?? null) : NOTHING,
      ),
    });
  }

  /** PUT /appointments/{id}: a move through the session, or corrected patient details. */
  async update(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { sessionId, no } = appointmentKeyOf(request);
    const changes = parseAppointmentChanges(request.body);
    let changed: AppointmentDoc | undefined;
    const session = await this.changeAppointment(sessionId, no, ctx, (existing, current) => {
      if (changes.status !== undefined) {
        checkMove(current.status, changes.status);
        if (existing.status !== 'active' && changes.status !== current.status) throw fail('SESSION_CLOSED');
      } else if (current.status === 'cancelled') throw fail('APPOINTMENT_MOVE_REFUSED', CHANNELING_MESSAGES.cancelled);
      changed = { ...current, ...changes };
      const appointments = replaced(existing.appointments ?? [], changed);
      const moved = changes.status !== undefined && changes.status !== current.status;
      const subject = moved ? MOVE_EVENTS[changes.status!]! : EventSubjects.appointmentUpdated;
      return {
        set: { appointments, open_count: openCount(appointments) },
        event: async (after) => this.event(subject, after, changed!, ctx),
      };
    });
    const money = await this.billing.balances([idOfAppointment(sessionId, no)], ctx);
    return success(200, {
      message: CHANNELING_MESSAGES.updated,
      appointment: await this.events.withPayment(session, changed!, money?.values().next().value ?? null),
    });
  }

  /**
   * Asked by billing (DELETE /appointments/{id}): cancels with the reason. A second ask answers the cancelled
   * appointment with `already`, so that billing can finish the refunds of a cancellation it began.
   */
  async cancel(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { sessionId, no } = appointmentKeyOf(request);
    const reason = parseReason(request.body);
    let cancelled: AppointmentDoc | undefined;
    let already = false;
    const session = await this.changeAppointment(sessionId, no, ctx, (existing, current) => {
      if (current.status === 'cancelled') {
        [cancelled, already] = [current, true];
        return null;
      }
      cancelled = { ...current, status: 'cancelled', cancel_reason: reason, cancelled_at: new Date() };
      const appointments = replaced(existing.appointments ?? [], cancelled);
      return {
        set: { appointments, open_count: openCount(appointments) },
        event: async (after) => this.event(EventSubjects.appointmentCancelled, after, cancelled!, ctx),
      };
    });
    return success(200, { appointment: await this.events.view(session, cancelled!), already });
  }

  /** The doctor's fee and the branch's fee of the level, snapshot on the appointment. */
  private async newAppointment(
    session: SessionDoc,
    no: number,
    input: BookingInput,
    ctx: HandlerContext,
  ): Promise<AppointmentDoc> {
    const { doctor, store } = await this.storage.doctorAndBranch(session);
    const branchFees = store?.channeling_fees
      ? Object.fromEntries(Object.entries(store.channeling_fees).map(([level, fee]) => [level, toCents(fee)]))
      : undefined;
    return {
      no,
      status: 'booked',
      ...input,
      ...feeSplit(toCents(doctor?.channeling_fee ?? 0), branchFees, input.fee_level),
      booked_by: callerOf(ctx),
      booked_at: new Date(),
      cancel_reason: null,
      cancelled_at: null,
    };
  }

  /** The session again after its write found nothing to change (it may be gone by now). */
  private async visibleSession(
    id: number,
    notFound: 'SESSION_NOT_FOUND' | 'APPOINTMENT_NOT_FOUND' = 'SESSION_NOT_FOUND',
  ): Promise<SessionDoc> {
    const session = await this.storage.queries.findVisible(id);
    if (!session) throw fail(notFound);
    return session;
  }

  /**
   * A change of appointment `no` in its session's write, as `decide` says once it has seen both; the session after
   * it. A session missing or of a branch out of reach is 404 APPOINTMENT_NOT_FOUND, as a number it never gave.
   */
  private async changeAppointment(
    sessionId: number,
    no: number,
    ctx: HandlerContext,
    decide: (existing: SessionDoc, current: AppointmentDoc) => RecordWrite<SessionDoc> | null,
  ): Promise<SessionDoc> {
    const after = await this.storage.writes.changeSession(
      sessionId,
      async (existing) => {
        foundInBranch(ctx, existing, 'APPOINTMENT_NOT_FOUND');
        const current = existing.appointments?.find((a) => a.no === no);
        if (!current) throw fail('APPOINTMENT_NOT_FOUND');
        return decide(existing, current);
      },
      'APPOINTMENT_NOT_FOUND',
    );
    return after === 'unchanged' || after === null ? this.visibleSession(sessionId, 'APPOINTMENT_NOT_FOUND') : after;
  }

  private event(subject: EventSubject, session: SessionDoc, a: AppointmentDoc, ctx: HandlerContext) {
    return this.events.event(subject, session, a, ctx.correlationId);
  }
}

/** A booking just made holds no money. */
const NOTHING = { paid_cents: 0, refunded_cents: 0 };
