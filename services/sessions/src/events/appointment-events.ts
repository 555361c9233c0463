/** Appointments as events and answers show them, with their session's doctor: shared by every write of a session. */
import type { EventSubject } from '@clinic/contracts';
import type { ClinicClock, HandlerContext } from '@clinic/service-kit';
import type { EventSpec } from '@clinic/service-kit/storage';
import { appointmentView, paymentView } from '../views/appointment-views';
import type { AppointmentDoc } from '../domain/appointments';
import type { SessionStorage } from '../storage';
import { minutesPerPatient, type SessionDoc } from '../domain/session';

export class AppointmentEvents {
  constructor(
    private readonly storage: SessionStorage,
    private readonly clock: ClinicClock,
  ) {}

  async minutesOf(session: SessionDoc): Promise<number> {
    return minutesPerPatient(session, (await this.storage.doctorAndBranch(session)).doctor ?? undefined);
  }

  async view(session: SessionDoc, a: AppointmentDoc): Promise<Record<string, unknown>> {
    return appointmentView(session, a, await this.minutesOf(session), this.clock);
  }

  async event(
    subject: EventSubject,
    session: SessionDoc,
    a: AppointmentDoc,
    correlationId: string,
  ): Promise<EventSpec> {
    return { subject, data: { appointment: await this.view(session, a) }, correlationId };
  }

  /** Events of several appointments of one session, for a write that moves them together. */
  async events(
    subject: EventSubject,
    session: SessionDoc,
    list: AppointmentDoc[],
    ctx: Pick<HandlerContext, 'correlationId'>,
  ) {
    return Promise.all(list.map((a) => this.event(subject, session, a, ctx.correlationId)));
  }

  /** The appointment as answers show it, with its money as billing answered it. */
  async withPayment(
    session: SessionDoc,
    a: AppointmentDoc,
    money: Parameters<typeof paymentView>[1],
  ): Promise<Record<string, unknown>> {
    return { ...(await this.view(session, a)), payment: paymentView(a, money) };
  }
}
