/** Reads of appointments: a session's list with their money, one appointment, and what billing asks of a session. */
import { appointmentKey, idOfAppointment, success, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import { fail, foundInBranch, pathId, queryId, type ClinicClock, type HandlerContext } from '@clinic/service-kit';
import type { BillingClient } from '../billing-client';
import { appointmentKeyOf } from '../domain/appointment-input';
import { openCount } from '../domain/appointments';
import { minutesPerPatient } from '../domain/session';
import type { AppointmentEvents } from '../events/appointment-events';
import type { SessionStorage } from '../storage';
import { appointmentView, paymentView } from '../views/appointment-views';

export class AppointmentReads {
  constructor(
    private readonly storage: SessionStorage,
    private readonly billing: BillingClient,
    private readonly events: AppointmentEvents,
    private readonly clock: ClinicClock,
  ) {}

  /** GET /sessions/{id}/appointments: in number order, with their money. */
  async list(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const sessionId = pathId(request, 'session_id', 'SESSION_NOT_FOUND');
    const session = foundInBranch(ctx, await this.storage.queries.findVisible(sessionId), 'SESSION_NOT_FOUND');
    const appointments = [...(session.appointments ?? [])].sort((a, b) => a.no - b.no);
    const money = await this.billing.balances(
      appointments.map((a) => idOfAppointment(session.id, a.no)),
      ctx,
    );
    const minutes = await this.events.minutesOf(session);
    const external = (await this.storage.queries.bookedCounts([session.id])).get(session.id) ?? 0;
    return success(200, {
      session_id: session.id,
      booked_count: openCount(appointments) + external,
      appointments: appointments.map((a) => ({
        ...appointmentView(session, a, minutes, this.clock),
        payment: paymentView(a, money?.get(idOfAppointment(session.id, a.no)) ?? null),
      })),
    });
  }

  /** GET /appointments/{id}. */
  async get(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { session, appointment } = await this.find(request, ctx);
    const money = await this.billing.balances([idOfAppointment(session.id, appointment.no)], ctx);
    return success(200, {
      appointment: await this.events.withPayment(session, appointment, money?.values().next().value ?? null),
    });
  }

  /** Asked by billing: a session (or one appointment's) and its appointments as stored, without their money. */
  async channeling(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const appointmentId = queryId(request.query ?? {}, 'appointment_id');
    const key = appointmentId === undefined ? null : appointmentKey(appointmentId);
    const sessionId = key?.sessionId ?? queryId(request.query ?? {}, 'session_id');
    if (appointmentId !== undefined && !key) throw fail('APPOINTMENT_NOT_FOUND');
    if (sessionId === undefined) throw fail('SESSION_NOT_FOUND');
    const found = await this.storage.queries.findVisible(sessionId);
    const session = foundInBranch(ctx, found, key ? 'APPOINTMENT_NOT_FOUND' : 'SESSION_NOT_FOUND');
    const appointments = (session.appointments ?? []).filter((a) => !key || a.no === key.appointmentNo);
    if (key && appointments.length === 0) throw fail('APPOINTMENT_NOT_FOUND');
    const { doctor, store } = await this.storage.doctorAndBranch(session);
    const minutes = minutesPerPatient(session, doctor ?? undefined);
    const [view] = await this.storage.queries.views([session]);
    return success(200, {
      session: { ...view, paid_for_absent: doctor?.paid_for_absent === true, store_name: store?.name ?? null },
      appointments: appointments
        .sort((a, b) => a.no - b.no)
        .map((a) => appointmentView(session, a, minutes, this.clock)),
    });
  }

  private async find(request: ServiceRequest, ctx: HandlerContext) {
    const { sessionId, no } = appointmentKeyOf(request);
    const session = foundInBranch(ctx, await this.storage.queries.findVisible(sessionId), 'APPOINTMENT_NOT_FOUND');
    const appointment = session.appointments?.find((a) => a.no === no);
    if (!appointment) throw fail('APPOINTMENT_NOT_FOUND');
    return { session, appointment };
  }
}
