/** A doctor's leave, as the reference data brings it: the bookings of their sessions on those days are cancelled. */
import { CHANNELING_MESSAGES, EventSubjects } from '@clinic/contracts';
import type { AppliedRecord } from '@clinic/service-kit/storage';
import type { AppointmentEvents } from '../events/appointment-events';
import { leaveCovers } from '../domain/blocks';
import { cancelWaiting } from '../domain/appointments';
import type { SessionStorage } from '../storage';

/**
 * Runs before the leave's message is acknowledged: a failure has it delivered again, and it starts over. Reads the
 * leave as it stands now, before and within each session's write: another replica may apply a newer version of it
 * meanwhile (moved, shortened, deleted), and only that one may cancel.
 */
export async function cancelBookingsOnLeave(
  storage: SessionStorage,
  events: AppointmentEvents,
  record: AppliedRecord,
): Promise<void> {
  if (record.deleted) return;
  const leave = await storage.queries.leave(record.id);
  if (!leave) return;
  const correlationId = `doctor-leave-${leave.id}`;
  // A booking that looked at the leaves before this one was stored lands first: the query below sees it.
  await storage.bookingsSettled(leave.doctor_id);
  for (const session of await storage.queries.withWaitingAppointments(
    leave.doctor_id,
    leave.from_date,
    leave.to_date,
  )) {
    await storage.writes.changeSession(session.id, async (existing) => {
      if (existing.status !== 'active') return null;
      const current = await storage.queries.leave(leave.id);
      if (!current || !leaveCovers(current, existing.doctor_id, existing.session_date)) return null;
      const dropped = cancelWaiting(existing, CHANNELING_MESSAGES.doctorOnLeave);
      if (dropped.cancelled.length === 0) return null;
      return {
        set: dropped.set,
        event: async (after) => {
          const [first, ...rest] = await events.events(EventSubjects.appointmentCancelled, after, dropped.cancelled, {
            correlationId,
          });
          return { ...first!, alongside: rest };
        },
      };
    });
  }
}
