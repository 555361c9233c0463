import type { Logger } from '../process/logger';
import { gauge, metricsEnabled } from '../process/metrics';

/** The service's state read at each scrape. */
export interface ServiceProbes {
  /** Events this process holds for publication, and outbox entries stored in the database. */
  outboxQueued(): number;
  outboxStored(): Promise<number>;
  /** Reference messages not yet applied (pending and unacknowledged). */
  referencePending(): Promise<number>;
  breakerOpen(): boolean;
}

/** Registers the gauges read at scrape time. */
export function registerServiceGauges(probes: ServiceProbes, log: Logger): void {
  if (!metricsEnabled()) return;
  const bounded = async (what: string, read: () => Promise<number>): Promise<number | null> => {
    try {
      return await Promise.race([
        read(),
        new Promise<number>((_, reject) => setTimeout(() => reject(new Error('no answer within 2 s')), 2_000).unref()),
      ]);
    } catch (err) {
      log.warn({ err, what }, 'metric not collected');
      return null;
    }
  };
  gauge({
    name: 'clinic_outbox_queued_events',
    help: 'Events recorded by this process and waiting to be published',
    collect() {
      this.set(probes.outboxQueued());
    },
  });
  const readAtScrape = (name: string, help: string, read: () => Promise<number>) =>
    gauge({
      name,
      help,
      async collect() {
        const value = await bounded(name, read);
        if (value !== null) this.set(value);
      },
    });
  readAtScrape(
    'clinic_outbox_stored_entries',
    "Entries in the service's outbox collection: events not yet published (every replica counts the same collection)",
    probes.outboxStored,
  );
  readAtScrape(
    'clinic_reference_pending_messages',
    "Reference-stream messages the service's durable consumer has not yet applied (its lag)",
    probes.referencePending,
  );
  gauge({
    name: 'clinic_db_breaker_open',
    help: '1 while the database breaker fails requests fast, else 0',
    collect() {
      this.set(probes.breakerOpen() ? 1 : 0);
    },
  });
}
