import './tracing';
import { startService } from '@clinic/service-kit/storage';
import { sessionsHandlers } from './adapter';
import { AutoCreation } from './operations/auto-creation';
import { SessionOperations } from './operations/sessions';
import { AppointmentEvents } from './events/appointment-events';
import { AppointmentOperations } from './operations/appointments';
import { AppointmentReads } from './operations/appointment-reads';
import { BillingClient } from './billing-client';
import { cancelBookingsOnLeave } from './operations/leave-cancellations';
import { SessionStorage } from './storage';
import { sessionView } from './views/session-view';

/** How often this process retries its own failed rollbacks, and looks for runs others abandoned. */
const ROLLBACK_RETRY_MS = 2_000;
const ABANDONED_SCAN_MS = 30_000;

void startService({
  name: 'sessions',
  async setup({ db, ids, outbox, clock, refs, log, cache, nc }) {
    const storage = new SessionStorage({ db, ids, outbox, cache, clock }, refs, sessionView);
    await storage.prepare();
    const events = new AppointmentEvents(storage, clock);
    // Doctors, stores and appointments appear in every session read; a doctor's leave cancels their bookings.
    refs.onApplied(async (kind, record) => {
      await storage.referenceApplied(kind);
      if (kind === 'doctor_leave') await cancelBookingsOnLeave(storage, events, record);
    });
    const autoCreation = new AutoCreation(storage, outbox, clock);
    const scan = () =>
      storage.runs.rollBackAbandoned(log).catch((err: unknown) => log.warn({ err }, 'abandoned-run scan failed'));
    await scan();
    setInterval(scan, ABANDONED_SCAN_MS).unref();
    setInterval(() => autoCreation.finishRollbacks().catch(() => undefined), ROLLBACK_RETRY_MS).unref();
    const billing = new BillingClient(nc);
    const appointments = new AppointmentOperations(storage, billing, events, clock);
    const reads = new AppointmentReads(storage, billing, events, clock);
    return sessionsHandlers(new SessionOperations(storage, refs, events, clock), autoCreation, appointments, reads);
  },
});
