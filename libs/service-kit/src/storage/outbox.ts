import { headers as natsHeaders, type JetStreamClient } from 'nats';
import type { Collection, Db } from 'mongodb';
import { HeaderNames } from '@clinic/contracts';
import { CarriedDocs } from './carried-docs';
import { GroupCommit } from '../concurrency/group-commit';
import { ServiceError } from '../domain/errors';
import { preparedEvents } from './prepared-events';
import type { Logger } from '../process/logger';
import { deleteByKeys, inChunks, isDuplicateKeyError } from './database-quirks';
import { OUTBOX_COLLECTION } from './outbox-collection';
import {
  entityProof,
  entryOf,
  newEventId,
  outboxEntry,
  storedEntry,
  withAlongside,
  type EventSpec,
  type OutboxEntry,
  type PreparedEvents,
  type ProofKind,
  type StoredOutboxEntry,
  type WriteOptions,
  type WriteProof,
} from './outbox-entries';
import { pauses, retryPolicy } from '../process/retry';
import { detachedFromTrace, withPublishSpan } from '../process/tracing';

export interface OutboxOptions {
  /** Entries younger than this may belong to a write still in progress in some process. */
  graceMs?: number;
  /**
   * How long after its entries were stored a write may still be sent (PreparedEvents.writeOptions):
   * well within the grace period, so that no write lands after the sweeper gave up on it.
   */
  writeWindowMs?: number;
  sweepIntervalMs?: number;
}

/** The defaults: a write window well within the grace period (see the class's note). */
export function outboxTimings(options: OutboxOptions = {}): Required<OutboxOptions> {
  const graceMs = options.graceMs ?? 10_000;
  return {
    graceMs,
    writeWindowMs: options.writeWindowMs ?? Math.floor(graceMs * 0.4),
    sweepIntervalMs: options.sweepIntervalMs ?? 5_000,
  };
}

/** The sweeper takes the entries stored before this: their writes can no longer be in flight. */
export function sweepCutoff(now: number, graceMs: number): Date {
  return new Date(now - graceMs);
}

/** Whether the write an entry describes happened, from whether its proof's filter found a document. */
export function proofHolds(proof: WriteProof, found: boolean): boolean {
  return proof.exists === found;
}

/** The entries of one preparation that are inserted together with others' (more: a batch of its own). */
const GROUPED_ENTRIES_MAX = 64;

// Unref'd: the shutdown bound must not keep a stopping process alive.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Transactional outbox without transactions (FerretDB v1 has none): an entry is stored before the write it describes
 * and published once the write landed; the sweeper settles a crashed process's (docs/architecture.md: Outbox).
 */
export class Outbox {
  private readonly entries: Collection<StoredOutboxEntry | OutboxEntry>;
  private readonly queue: OutboxEntry[] = [];
  /** Entries this process is writing, queuing or publishing; the sweeper leaves them alone. */
  private readonly owned = new Set<string>();
  /** The documents this process's entries carry (CarriedDoc), stored once. */
  private readonly carried: CarriedDocs;
  /** Entries of writes recorded at about the same time, inserted together (see GroupCommit). */
  private readonly inserts = new GroupCommit<StoredOutboxEntry>((entries) => this.insert(entries));
  private pumping: Promise<void> | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly graceMs: number;
  private readonly writeWindowMs: number;
  private readonly sweepIntervalMs: number;
  /** A batch is tried again until it is published, 100 ms after a failure, then twice as long each time up to 2 s. */
  private readonly untilHandedOver = retryPolicy({
    retryOn: () => !this.stopped,
    retries: Infinity,
    pause: pauses.doubling(100, 2_000),
    onRetry: (err) => this.log.warn({ err, pending: this.queue.length }, 'event publication failed; retrying'),
    holdsProcess: false,
  });

  constructor(
    private readonly db: Db,
    private readonly js: JetStreamClient,
    private readonly log: Logger,
    options: OutboxOptions = {},
  ) {
    this.entries = db.collection<StoredOutboxEntry | OutboxEntry>(OUTBOX_COLLECTION.collection);
    this.carried = new CarriedDocs(db);
    const timings = outboxTimings(options);
    this.graceMs = timings.graceMs;
    this.writeWindowMs = timings.writeWindowMs;
    this.sweepIntervalMs = timings.sweepIntervalMs;
  }

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

  /**
   * Runs `write` with its event: the event is durable before the write and is
   * published once the write has succeeded. `write` receives the event id,
   * which it must store on the entity (see withEventId) unless the proof says
   * otherwise, and the options its database write must take (writeOptions).
   * `guard` runs between the two and may still refuse the write; when it
   * fails, the entries go at once (their fences with them).
   */
  async record<T>(
    spec: EventSpec & { collection: string; key: string; proof?: ProofKind | WriteProof },
    write: (eventId: string, options: WriteOptions, proof: WriteProof) => Promise<T>,
    guard?: () => Promise<void>,
  ): Promise<T> {
    const eventId = spec.eventId ?? newEventId();
    const proof: WriteProof =
      spec.proof === 'absent'
        ? { collection: spec.collection, filter: { _id: spec.key }, exists: false }
        : typeof spec.proof === 'object'
          ? spec.proof
          : entityProof(spec.collection, spec.key, eventId);
    const prepared = await this.prepare(withAlongside({ ...spec, eventId }, proof));
    const options = await prepared.beforeWrite(async () => {
      await guard?.();
      return prepared.writeOptions();
    });
    let result: T;
    try {
      result = await write(eventId, options, proof);
    } catch (err) {
      if (isDuplicateKeyError(err) || err instanceof ServiceError) {
        // The write certainly did not happen.
        await prepared.discard().catch(() => undefined);
      } else {
        // Timeouts, lost connections: the write may have happened.
        prepared.forget();
      }
      throw err;
    }
    await prepared.settle();
    return result;
  }

  /** Records events (one insert for all) before the writes they describe. */
  async prepare(events: Array<EventSpec & { eventId?: string; proof: WriteProof }>): Promise<PreparedEvents> {
    const entries = events.map((spec) => outboxEntry(spec.eventId ?? newEventId(), spec, spec.proof));
    for (const entry of entries) this.owned.add(entry._id);
    const stored = entries.map(storedEntry);
    try {
      // A request's few entries go with those of the requests recording at the same time; a month of sessions alone.
      if (entries.length <= GROUPED_ENTRIES_MAX) await this.inserts.submit(stored);
      else await this.insert(stored);
    } catch (err) {
      for (const entry of entries) this.owned.delete(entry._id);
      throw err;
    }
    // As insert() stamped them (none: nothing stored, now).
    const storedAt = stored[0]?.created_at ?? new Date();
    return preparedEvents(entries, storedAt, {
      owned: this.owned,
      outbox: this.entries,
      carried: this.carried,
      log: this.log,
      writeWindowMs: this.writeWindowMs,
      hand: (handed) => {
        this.queue.push(...handed);
        this.kick();
      },
    });
  }

  /**
   * Whether an entry carrying `fence` holds it: its write may still land, or
   * its records are not stored yet (EventSpec.fences). An entry whose records
   * are all stored holds it no more, published or not: they are stored only
   * once its write landed, so a close need not wait for NATS.
   */
  async holdsFence(fence: string): Promise<boolean> {
    const held = await this.entries.find({ fences: fence }).toArray();
    return held.length > 0 && !(await this.carried.allStored(held.map(entryOf)));
  }

  /**
   * In slices, so that no single write outlasts the driver's socket timeout (a month of sessions is thousands).
   * Stamped now, as they are sent: the sweeper's grace and the writes' window run from the time an entry
   * was stored, not from the time it was made (it may have waited for a group commit meanwhile).
   */
  private async insert(entries: StoredOutboxEntry[]): Promise<void> {
    const now = new Date();
    for (const entry of entries) entry.created_at = now;
    for (const slice of inChunks(entries, 500)) await this.entries.insertMany(slice);
  }

  /** Publishes what is queued, waiting at most `timeoutMs`; what is left stays in the database. */
  async stop(timeoutMs = 3_000): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer) clearTimeout(this.sweepTimer);
    const drained = this.pumping ?? Promise.resolve();
    await Promise.race([drained, sleep(timeoutMs)]);
  }

  pendingInProcess(): number {
    return this.queue.length;
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
