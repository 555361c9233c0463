import { randomUUID } from 'node:crypto';
import { headers as natsHeaders, type JetStreamClient } from 'nats';
import { MongoBulkWriteError, type Collection, type Db } from 'mongodb';
import { HeaderNames, type DomainEvent, type EventSubject } from '@clinic/contracts';
import { ServiceError } from './errors';
import type { Logger } from './logger';
import { deleteByKeys, inChunks, isDuplicateKeyError } from './mongo';
import { pauses, retryPolicy } from './retry';
import { currentTraceCarrier, detachedFromTrace, withPublishSpan } from './tracing';

/**
 * How the sweeper tells whether the write an event describes happened, for an
 * entry whose process died (or failed) between recording the event and
 * handing it over: the write happened if a document matching `filter` exists
 * (or, with `exists: false`, if none does) in `collection`.
 */
export interface WriteProof {
  collection: string;
  filter: Record<string, unknown>;
  exists: boolean;
}

/** The usual proofs: the entity lists the event id, or the entity is gone. */
export type ProofKind = 'contains-event' | 'absent';

/**
 * A document that must exist exactly when the write an event describes
 * happened, such as an audit-trail entry: kept in the outbox entry, inserted
 * once the write succeeded (or, for a write the sweeper proved, by the relay).
 * It is stored under the event's id (so one record per collection and event),
 * which makes a second insert change nothing.
 */
export interface CommitRecord {
  collection: string;
  doc: Record<string, unknown>;
}

export interface OutboxEntry {
  _id: string;
  subject: EventSubject;
  event: DomainEvent;
  proof: WriteProof;
  created_at: Date;
  records?: CommitRecord[];
  /** The W3C trace context of the request that recorded the event, when tracing is on. */
  trace?: Record<string, string>;
}

export interface EventSpec {
  subject: EventSubject;
  data: Record<string, unknown>;
  correlationId: string;
  /** Stored after the write, exactly once (see CommitRecord). */
  records?: CommitRecord[];
}

/** Events recorded ahead of their writes: released when a write succeeded, discarded when it certainly failed. */
export interface PreparedEvents {
  entries: OutboxEntry[];
  /** Hands these (default: all) to the relay. */
  release(eventIds?: string[]): void;
  /**
   * After their writes succeeded: stores the entries' records now, so that the
   * caller's answer follows them, then releases them. A record that cannot be
   * stored now is left to the relay, which stores it before it publishes.
   */
  settle(eventIds?: string[]): Promise<void>;
  /** Deletes the entries of writes that certainly did not happen. */
  discard(eventIds?: string[]): Promise<void>;
  /** Stops tracking entries whose writes may or may not have happened: the sweeper decides. */
  forget(eventIds?: string[]): void;
}

/** The proof that an entity write recorded `eventId` (see withEventId). */
export function entityProof(collection: string, key: string, eventId: string): WriteProof {
  return { collection, filter: { _id: key, _event_ids: eventId }, exists: true };
}

export const newEventId = (): string => randomUUID();

export interface OutboxOptions {
  /** Entries younger than this may belong to a write still in progress in some process. */
  graceMs?: number;
  sweepIntervalMs?: number;
}

/**
 * How many recent event ids an entity keeps: enough for the sweeper to prove
 * its recent writes. The list is bounded here rather than with `$push`'s
 * `$slice`, which FerretDB v1 ignores: entities would grow with every update,
 * and every read decodes them whole.
 */
export const EVENT_IDS_KEPT = 20;

/** The entity's event ids after a write that records `eventId` (set in the same update as the change). */
export function withEventId(current: string[] | undefined, eventId: string): string[] {
  return [...(current ?? []).slice(-(EVENT_IDS_KEPT - 1)), eventId];
}

// Unref'd: the shutdown bound must not keep a stopping process alive.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * Transactional outbox without transactions (FerretDB v1 has none):
 * 1. the event is inserted into `outbox` before the entity write;
 * 2. the entity write records the event id on the entity itself (same document write);
 * 3. a successful write hands the entry to the in-process relay, which publishes
 *    it to JetStream with `Nats-Msg-Id` = event id and deletes the entry.
 * While NATS is away the relay keeps retrying in order. A sweeper picks up
 * entries left by a crashed process, checks the entity to see whether the write
 * happened, and publishes or discards them. JetStream's duplicate window makes
 * a second publication of the same event harmless. The relay never writes
 * entity documents: FerretDB replaces whole documents on update, so a relay
 * write could undo a concurrent change.
 */
export class Outbox {
  private readonly entries: Collection<OutboxEntry>;
  private readonly queue: OutboxEntry[] = [];
  /** Entries this process is writing, queuing or publishing; the sweeper leaves them alone. */
  private readonly owned = new Set<string>();
  /** Entries of this process whose records are stored. */
  private readonly recordsStored = new Set<string>();
  /** Records of settled writes waiting for the write in flight (see storeRecordsTogether). */
  private readonly recordsWaiting: Array<{ entries: OutboxEntry[]; resolve(): void; reject(err: unknown): void }> = [];
  private recordsWriting = false;
  private pumping: Promise<void> | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopped = false;
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

  constructor(
    private readonly db: Db,
    private readonly js: JetStreamClient,
    private readonly log: Logger,
    options: OutboxOptions = {},
  ) {
    this.entries = db.collection<OutboxEntry>('outbox');
    this.graceMs = options.graceMs ?? 10_000;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 5_000;
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
   * published once the write has succeeded. `write` receives the event id and
   * must store it on the entity (see withEventId) unless the proof is `absent`.
   */
  async record<T>(
    spec: EventSpec & { collection: string; key: string; proof?: ProofKind },
    write: (eventId: string) => Promise<T>,
  ): Promise<T> {
    const eventId = newEventId();
    const proof: WriteProof =
      spec.proof === 'absent'
        ? { collection: spec.collection, filter: { _id: spec.key }, exists: false }
        : entityProof(spec.collection, spec.key, eventId);
    const prepared = await this.prepare([{ ...spec, eventId, proof }]);
    let result: T;
    try {
      result = await write(eventId);
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
    const entries = events.map((spec) => this.entry(spec.eventId ?? newEventId(), spec, spec.proof));
    for (const entry of entries) this.owned.add(entry._id);
    try {
      // In slices, so that no single write outlasts the driver's socket timeout (a month of sessions is thousands).
      for (const slice of inChunks(entries, 500)) await this.entries.insertMany(slice);
    } catch (err) {
      for (const entry of entries) this.owned.delete(entry._id);
      throw err;
    }
    const pick = (eventIds?: string[]) => {
      if (!eventIds) return entries;
      const wanted = new Set(eventIds);
      return entries.filter((e) => wanted.has(e._id));
    };
    const release = (eventIds?: string[]) => {
      this.queue.push(...pick(eventIds));
      this.kick();
    };
    return {
      entries,
      release,
      settle: async (eventIds) => {
        try {
          await this.storeRecordsTogether(pick(eventIds));
        } catch (err) {
          this.log.warn({ err }, 'records of a committed write not stored yet; the relay will store them');
        }
        release(eventIds);
      },
      discard: async (eventIds) => {
        const chosen = pick(eventIds);
        for (const entry of chosen) this.owned.delete(entry._id);
        await deleteByKeys(this.entries, chosen.map((e) => e._id));
      },
      forget: (eventIds) => {
        for (const entry of pick(eventIds)) this.owned.delete(entry._id);
      },
    };
  }

  /**
   * storeRecords for requests that settle at the same time, in one write per
   * collection (group commit): the first waits for nothing, the ones that
   * arrive while a write is in flight go together in the next.
   */
  private storeRecordsTogether(entries: OutboxEntry[]): Promise<void> {
    if (!entries.some((entry) => (entry.records?.length ?? 0) > 0)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.recordsWaiting.push({ entries, resolve, reject });
      if (!this.recordsWriting) void this.writeWaitingRecords();
    });
  }

  private async writeWaitingRecords(): Promise<void> {
    this.recordsWriting = true;
    try {
      while (this.recordsWaiting.length > 0) {
        const group = this.recordsWaiting.splice(0);
        try {
          await this.storeRecords(group.flatMap((g) => g.entries));
          for (const g of group) g.resolve();
        } catch (err) {
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.recordsWriting = false;
    }
  }

  /** Inserts the records of these entries that are not stored yet; one already there counts as stored. */
  private async storeRecords(entries: OutboxEntry[]): Promise<void> {
    const pending = entries.filter((entry) => (entry.records?.length ?? 0) > 0 && !this.recordsStored.has(entry._id));
    const byCollection = new Map<string, Array<{ _id: string }>>();
    for (const { _id, records } of pending) {
      for (const { collection, doc } of records!) byCollection.set(collection, [...(byCollection.get(collection) ?? []), { ...doc, _id }]);
    }
    for (const [collection, docs] of byCollection) {
      const target = this.db.collection<{ _id: string }>(collection);
      try {
        await target.insertMany(docs, { ordered: false });
      } catch (err) {
        const errors = err instanceof MongoBulkWriteError ? [err.writeErrors].flat() : [];
        if (errors.length === 0 || !errors.every((e) => isDuplicateKeyError(e))) throw err;
        // Refused as duplicates: stored already, unless another unique index refused them.
        const refused = errors.map((e) => docs[e.index]._id);
        if ((await target.countDocuments({ _id: { $in: refused } })) !== refused.length) throw err;
      }
    }
    for (const entry of pending) this.recordsStored.add(entry._id);
  }

  private entry(eventId: string, spec: EventSpec, proof: WriteProof): OutboxEntry {
    const trace = currentTraceCarrier();
    return {
      _id: eventId,
      subject: spec.subject,
      event: {
        event_id: eventId,
        type: spec.subject,
        occurred_at: new Date().toISOString(),
        correlation_id: spec.correlationId,
        data: spec.data,
      },
      proof,
      created_at: new Date(),
      ...(spec.records?.length ? { records: spec.records } : {}),
      ...(trace ? { trace } : {}),
    };
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
          await this.storeRecords(batch);
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
        this.recordsStored.delete(id);
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
    const cutoff = new Date(Date.now() - this.graceMs);
    const stale = await this.entries.find({ created_at: { $lt: cutoff } }).sort({ created_at: 1 }).limit(500).toArray();
    let adopted = 0;
    for (const entry of stale) {
      if (this.owned.has(entry._id)) continue;
      if (await this.writeHappened(entry)) {
        this.owned.add(entry._id);
        this.queue.push(entry);
        adopted++;
      } else {
        await this.entries.deleteOne({ _id: entry._id });
        this.log.info({ event_id: entry._id, subject: entry.subject }, 'outbox entry of a write that did not happen discarded');
      }
    }
    if (adopted > 0) {
      this.log.info({ adopted }, 'outbox entries recovered for publication');
      this.kick();
    }
  }

  private async writeHappened({ proof }: OutboxEntry): Promise<boolean> {
    const found = await this.db.collection(proof.collection).findOne(proof.filter, { projection: { _id: 1 } });
    return proof.exists ? found !== null : found === null;
  }
}
