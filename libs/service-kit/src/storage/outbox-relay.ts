/**
 * The outbox's relay: publishes the entries handed to it once their writes landed, then deletes them; its sweeper
 * settles the entries a crashed process left (docs/architecture.md: Outbox).
 */
import { headers as natsHeaders, type JetStreamClient } from 'nats';
import type { Collection, Db } from 'mongodb';
import { HeaderNames } from '@clinic/contracts';
import type { CarriedDocs } from './carried-docs';
import type { Logger } from '../process/logger';
import { deleteByKeys } from './database-quirks';
import { entryOf, type OutboxEntry, type StoredOutboxEntry, type WriteProof } from './outbox-entries';
import { pauses, retryPolicy } from '../process/retry';
import { detachedFromTrace, withPublishSpan } from '../process/tracing';

/** The sweeper takes the entries stored before this: their writes can no longer be in flight. */
export function sweepCutoff(now: number, graceMs: number): Date {
  return new Date(now - graceMs);
}

/** Whether the write an entry describes happened, from whether its proof's filter found a document. */
export function proofHolds(proof: WriteProof, found: boolean): boolean {
  return proof.exists === found;
}

// Unref'd: the shutdown bound must not keep a stopping process alive.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export interface OutboxRelayParts {
  db: Db;
  entries: Collection<StoredOutboxEntry | OutboxEntry>;
  carried: CarriedDocs;
  js: JetStreamClient;
  log: Logger;
  graceMs: number;
  sweepIntervalMs: number;
}

export class OutboxRelay {
  private readonly queue: OutboxEntry[] = [];
  /** Entries this process is writing, queuing or publishing; the sweeper leaves them alone. */
  readonly owned = new Set<string>();
  private pumping: Promise<void> | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly db: Db;
  private readonly entries: Collection<StoredOutboxEntry | OutboxEntry>;
  private readonly carried: CarriedDocs;
  private readonly js: JetStreamClient;
  private readonly log: Logger;
  private readonly graceMs: number;
  private readonly sweepIntervalMs: number;
  /** A batch is tried again until it is published, 100 ms after a failure, then twice as long each time up to 2 s. */
  private readonly untilHandedOver = retryPolicy({
    retryOn: () => !this.stopped,
    retries: Infinity,
    pause: pauses.doubling(100, 2_000),
    onRetry: (err) => this.log.warn({ err, pending: this.queue.length }, 'event publication failed; retrying'),
    holdsProcess: false,
  });

  constructor(parts: OutboxRelayParts) {
    this.db = parts.db;
    this.entries = parts.entries;
    this.carried = parts.carried;
    this.js = parts.js;
    this.log = parts.log;
    this.graceMs = parts.graceMs;
    this.sweepIntervalMs = parts.sweepIntervalMs;
  }

  /** Sweeps now, then every sweepIntervalMs until stopped. */
  start(): void {
    const tick = () => {
      this.sweep()
        .catch((err: unknown) => this.log.warn({ err }, 'outbox sweep failed'))
        .finally(() => {
          if (!this.stopped) this.sweepTimer = setTimeout(tick, this.sweepIntervalMs);
        });
    };
    this.sweepTimer = setTimeout(tick, 0);
  }

  /** Publishes what is queued, waiting at most `timeoutMs`; what is left stays in the database. */
  async stop(timeoutMs = 3_000): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    const drained = this.pumping ?? Promise.resolve();
    await Promise.race([drained, sleep(timeoutMs)]);
  }

  pending(): number {
    return this.queue.length;
  }

  /** Entries whose writes landed, to publish (then delete). */
  hand(entries: OutboxEntry[]): void {
    this.queue.push(...entries);
    this.kick();
  }

  private kick(): void {
    if (!this.pumping) {
      // The relay's database calls and publications belong to no request's trace.
      this.pumping = detachedFromTrace(() => this.pump()).finally(() => {
        this.pumping = null;
        if (this.queue.length > 0 && !this.stopped) this.kick();
      });
    }
  }

  private async pump(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, 64);
      try {
        await this.untilHandedOver.execute(async () => {
          // A record is stored before its event is published, and so before the entry is deleted.
          await this.carried.store(batch);
          // Publishes are issued in order on one connection, so JetStream stores them in order.
          await Promise.all(batch.map((entry) => this.publish(entry)));
        });
      } catch {
        return; // stopped: what is left stays in the database
      }
      this.queue.splice(0, batch.length);
      const ids = batch.map((entry) => entry._id);
      try {
        await deleteByKeys(this.entries, ids);
      } catch (err) {
        // Left in place, they will be swept and republished; JetStream drops the duplicates.
        this.log.warn({ err, count: ids.length }, 'published outbox entries not deleted');
      }
      for (const id of ids) {
        this.owned.delete(id);
        this.carried.done(id);
      }
    }
  }

  private async publish(entry: OutboxEntry): Promise<void> {
    const h = natsHeaders();
    if (entry.event.correlation_id) h.set(HeaderNames.correlationId, entry.event.correlation_id);
    await withPublishSpan(entry.subject, entry.trace, h, () =>
      this.js.publish(entry.subject, JSON.stringify(entry.event), { msgID: entry._id, headers: h, timeout: 2_000 }),
    );
  }

  private async sweep(): Promise<void> {
    const cutoff = sweepCutoff(Date.now(), this.graceMs);
    const stale = (
      await this.entries
        .find({ created_at: { $lt: cutoff } })
        .sort({ created_at: 1 })
        .limit(500)
        .toArray()
    ).map(entryOf);
    let adopted = 0;
    for (const entry of stale) {
      if (this.owned.has(entry._id)) continue;
      if (await this.writeHappened(entry)) {
        this.owned.add(entry._id);
        this.queue.push(entry);
        adopted++;
      } else {
        await this.entries.deleteOne({ _id: entry._id });
        this.log.info(
          { event_id: entry._id, subject: entry.subject },
          'outbox entry of a write that did not happen discarded',
        );
      }
    }
    if (adopted > 0) {
      this.log.info({ adopted }, 'outbox entries recovered for publication');
      this.kick();
    }
  }

  private async writeHappened({ proof }: OutboxEntry): Promise<boolean> {
    const found = await this.db.collection(proof.collection).findOne(proof.filter, { projection: { _id: 1 } });
    return proofHolds(proof, found !== null);
  }
}
