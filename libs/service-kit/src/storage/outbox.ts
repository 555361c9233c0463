import type { JetStreamClient } from 'nats';
import type { Collection, Db } from 'mongodb';
import { CarriedDocs } from './carried-docs';
import { GroupCommit } from '../concurrency/group-commit';
import { ServiceError } from '../domain/errors';
import { preparedEvents } from './prepared-events';
import type { Logger } from '../process/logger';
import { inChunks, isDuplicateKeyError } from './database-quirks';
import { OUTBOX_COLLECTION } from './outbox-collection';
import { OutboxRelay } from './outbox-relay';
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

/** The entries of one preparation that are inserted together with others' (more: a batch of its own). */
const GROUPED_ENTRIES_MAX = 64;

/**
 * Transactional outbox without transactions (FerretDB v1 has none): an entry is stored before the write it describes
 * and published once the write landed; the sweeper settles a crashed process's (docs/architecture.md: Outbox).
 */
export class Outbox {
  private readonly entries: Collection<StoredOutboxEntry | OutboxEntry>;
  /** The documents this process's entries carry (CarriedDoc), stored once. */
  private readonly carried: CarriedDocs;
  /** Entries of writes recorded at about the same time, inserted together (see GroupCommit). */
  private readonly inserts = new GroupCommit<StoredOutboxEntry>((entries) => this.insert(entries));
  private readonly writeWindowMs: number;
  private readonly relay: OutboxRelay;

  constructor(
    db: Db,
    js: JetStreamClient,
    private readonly log: Logger,
    options: OutboxOptions = {},
  ) {
    this.entries = db.collection<StoredOutboxEntry | OutboxEntry>(OUTBOX_COLLECTION.collection);
    this.carried = new CarriedDocs(db);
    const { graceMs, writeWindowMs, sweepIntervalMs } = outboxTimings(options);
    this.writeWindowMs = writeWindowMs;
    this.relay = new OutboxRelay({
      db,
      entries: this.entries,
      carried: this.carried,
      js,
      log,
      graceMs,
      sweepIntervalMs,
    });
  }

  /** Starts the sweeper (the relay publishes what is handed to it from the start). */
  start(): void {
    this.relay.start();
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
    for (const entry of entries) this.relay.owned.add(entry._id);
    const stored = entries.map(storedEntry);
    try {
      // A request's few entries go with those of the requests recording at the same time; a month of sessions alone.
      if (entries.length <= GROUPED_ENTRIES_MAX) await this.inserts.submit(stored);
      else await this.insert(stored);
    } catch (err) {
      for (const entry of entries) this.relay.owned.delete(entry._id);
      throw err;
    }
    // As insert() stamped them (none: nothing stored, now).
    const storedAt = stored[0]?.created_at ?? new Date();
    return preparedEvents(entries, storedAt, {
      owned: this.relay.owned,
      outbox: this.entries,
      carried: this.carried,
      log: this.log,
      writeWindowMs: this.writeWindowMs,
      hand: (handed) => this.relay.hand(handed),
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
  stop(timeoutMs = 3_000): Promise<void> {
    return this.relay.stop(timeoutMs);
  }

  pendingInProcess(): number {
    return this.relay.pending();
  }
}
