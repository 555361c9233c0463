/** The NATS side of sessions: one handler per subject. */
import { SessionsSubjects } from '@clinic/contracts';
import { type Handler, subjectHandlers } from '@clinic/service-kit';
import type { AutoCreation } from './operations/auto-creation';
import type { SessionOperations } from './operations/sessions';
import type { AppointmentOperations } from './operations/appointments';
import type { AppointmentReads } from './operations/appointment-reads';

export function sessionsHandlers(
  sessions: SessionOperations,
  autoCreation: AutoCreation,
  appointments: AppointmentOperations,
  reads: AppointmentReads,
): Record<string, Handler> {
  return {
    ...subjectHandlers(SessionsSubjects, sessions, ['list', 'get', 'create', 'update', 'delete', 'complete']),
    ...subjectHandlers(SessionsSubjects, autoCreation, ['preview', 'autoCreate']),
    ...subjectHandlers(SessionsSubjects, appointments, {
      book: 'book',
      updateAppointment: 'update',
      cancelAppointment: 'cancel',
    }),
    ...subjectHandlers(SessionsSubjects, reads, { appointments: 'list', appointment: 'get', channeling: 'channeling' }),
  };
}
