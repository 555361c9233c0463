/**
 * Billing's questions to sessions about channeling, asked with the
 * caller's token, so that sessions applies the caller's branches too: a
 * session and its appointments, one appointment, and an appointment's
 * cancellation. Sessions' refusals (404, 409, 401, 403) reach the caller as
 * sessions gave them; no answer, or a failure of sessions itself, is 503
 * CHANNELING_UNAVAILABLE (nothing was moved: retry).
 */
import type { NatsConnection } from 'nats';
import { CHANNELING_MESSAGES, SessionsSubjects } from '@clinic/contracts';
import { askAsCaller, fail, refusalOf, type HandlerContext } from '@clinic/service-kit';
import {
  readCancelled,
  readChanneling,
  type ChanneledAppointment,
  type ChanneledSession,
} from './views/channeling-replies';

export class SessionsClient {
  constructor(private readonly nc: NatsConnection) {}

  /** A session and its appointments as stored, without their money. */
  async session(
    sessionId: number,
    ctx: HandlerContext,
  ): Promise<{ session: ChanneledSession; appointments: ChanneledAppointment[] }> {
    return readChanneling(
      await this.ask(SessionsSubjects.channeling, { query: { session_id: String(sessionId) } }, ctx),
    );
  }

  /** One appointment, with its session. */
  async appointment(
    appointmentId: number,
    ctx: HandlerContext,
  ): Promise<{ session: ChanneledSession; appointment: ChanneledAppointment }> {
    const { session, appointments } = readChanneling(
      await this.ask(SessionsSubjects.channeling, { query: { appointment_id: String(appointmentId) } }, ctx),
    );
    const appointment = appointments.find((a) => a.id === appointmentId);
    if (!appointment) throw new Error(`sessions answered appointment ${appointmentId} without it`);
    return { session, appointment };
  }

  /** Cancels an appointment (sessions is idempotent: `already` when it was cancelled before). */
  async cancel(
    appointmentId: number,
    reason: string,
    ctx: HandlerContext,
  ): Promise<{ appointment: ChanneledAppointment; already: boolean }> {
    return readCancelled(
      await this.ask(
        SessionsSubjects.cancelAppointment,
        { params: { appointment_id: String(appointmentId) }, body: { reason } },
        ctx,
      ),
    );
  }

  private async ask(subject: string, request: Record<string, unknown>, ctx: HandlerContext): Promise<unknown> {
    const unavailable = () => fail('CHANNELING_UNAVAILABLE', CHANNELING_MESSAGES.sessionsUnavailable);
    const reply = await askAsCaller(this.nc, subject, request, ctx, unavailable);
    if (reply.status === 200 && reply.body.success) return reply.body;
    if (reply.status >= 500) {
      ctx.log.warn({ status: reply.status, subject }, 'sessions failed');
      throw unavailable();
    }
    if (!reply.body.success && reply.status >= 400) throw refusalOf(reply.status, reply.body);
    throw new Error(`Unexpected reply of ${subject}: ${JSON.stringify(reply)}`);
  }
}
