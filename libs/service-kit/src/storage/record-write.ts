/**
 * The one write path of a service's records: find, check, outbox entry, then a compare-and-set write on the version
 * read, started again from the read when another replica wrote first (docs/architecture.md: Design notes).
 */
import type { Collection, Db, Document, Filter } from 'mongodb';
import type { VersionedCache } from '../cache/versioned-cache';
import type { ClinicClock } from '../domain/clock';
import { REQUEST_MESSAGES, type ErrorCode } from '@clinic/contracts';
import { fail, ServiceError, type NotFoundCode } from '../domain/errors';
import { withFreshId, type IdAllocator } from './id-allocator';
import { isDuplicateKeyError } from './database-quirks';
import { KeyedMutex } from '../concurrency/mutex';
import type { Outbox } from './outbox';
import { pauses, retryPolicy } from '../process/retry';
import { withEventId, type EventSpec, type WriteProof } from './outbox-entries';
import { BatchedUpdates } from './batched-updates';

/** How long a change keeps starting again while other replicas change its record first (then 409). */
const CHANGE_WAIT_MS = 3_000;

/** What a service's storage layer stands on (startService gives each). */
export interface StorageDeps {
  db: Db;
  ids: IdAllocator;
  outbox: Outbox;
  cache: VersionedCache;
  clock: ClinicClock;
}

/** What every record keeps: its key, its integer id and the ids of its latest events (see withEventId). */
export interface StoredRecord {
  _id: string;
  id: number;
  _event_ids: string[];
}

/**
 * What a caller decided to do with a record it found: change some fields,
 * with the event of the record as changed (`after`), or delete it, with its event.
 */
export type RecordWrite<Doc> =
  | {
      set: Partial<Doc>;
      event(after: Doc): EventSpec | Promise<EventSpec>;
      /**
       * Runs once the event is recorded, right before the write, and may still
       * refuse it (by throwing): a check that must see what happened after the
       * event's fences were visible (EventSpec.fences). Whatever it throws, the
       * write is not attempted and the event is discarded at once.
       */
      guard?: () => Promise<void>;
      /**
       * How the sweeper tells that the write happened, when the record keeps
       * something of it for longer than its latest event ids (see
       * EVENT_IDS_KEPT): by default, the record lists the event's id.
       */
      proof?: WriteProof;
    }
  | { remove: true; event: EventSpec };

export interface RecordWriterOptions<Doc extends StoredRecord> {
  collection: Collection<Doc>;
  /** The kind of record, as this process's queue of changes names it: `bill` queues `bill:<id>`. */
  recordKind: string;
  /** The id counter of new records. */
  counter: string;
  ids: IdAllocator;
  outbox: Outbox;
  /** The record as a change may find it: null when it does not exist for the caller (deleted, hidden). */
  find(id: number): Promise<Doc | null>;
  /** What the record must still match when it is written (besides its `_id`): it is still live, say. */
  stillWritable?: Filter<Doc>;
  /** Answered (404) when the record is missing: the record's *_NOT_FOUND code. */
  notFound: NotFoundCode;
  /** Answered (409) when a unique index (other than `_id`) refuses a write; without it the error is thrown as is. */
  duplicate?: Exclude<ErrorCode, 'VALIDATION_FAILED'>;
  /**
   * After a write: marks the cached reads that show this record as stale.
   * `before` is the record as the write found it, for a change (absent for a
   * new record or a deletion).
   */
  written(doc: Doc, before?: Doc): Promise<void>;
}

/** A change's write matched nothing: its record changed (or went) after it was read. */
export class ChangedMeanwhile extends ServiceError {
  constructor() {
    super(409, REQUEST_MESSAGES.recordBusy, 'RECORD_BUSY');
  }
}

/** The filter of a change's write: the record as it was found, and no other version (then `stillWritable`). */
export function asFoundFilter<Doc extends StoredRecord>(existing: Doc, stillWritable?: Filter<Doc>): Filter<Doc> {
  return { ...stillWritable, _id: existing._id, _event_ids: existing._event_ids ?? { $exists: false } } as Filter<Doc>;
}

/** Whether a change starts again from the read after `err`: only when its record changed meanwhile, until `giveUpAt`. */
export function startsAgain(err: unknown, giveUpAt: number, now = Date.now()): boolean {
  return err instanceof ChangedMeanwhile && now < giveUpAt;
}

export class RecordWriter<Doc extends StoredRecord> {
  /** Changes of one record in this process, one at a time. */
  private readonly queue = new KeyedMutex();
  /** The changes' compare-and-set writes, those of concurrent requests in one command. */
  private readonly updates: BatchedUpdates;

  constructor(private readonly options: RecordWriterOptions<Doc>) {
    this.updates = new BatchedUpdates(options.collection as unknown as Collection<Document>);
  }

  /**
   * Stores a new record under a fresh id with its event. `build` makes the
   * document (its `_event_ids` are set here) and its event.
   */
  async insert(build: (id: number) => Promise<{ doc: Doc; event: EventSpec }>): Promise<Doc> {
    const { collection, counter, ids, outbox } = this.options;
    const doc = await this.refusingDuplicates(() =>
      withFreshId(ids, counter, collection, async (id) => {
        const { doc, event } = await build(id);
        await outbox.record({ ...event, collection: collection.collectionName, key: doc._id }, (eventId, options) =>
          collection.insertOne({ ...doc, _event_ids: [eventId] } as never, options),
        );
        return doc;
      }),
    );
    await this.options.written(doc);
    return doc;
  }

  /**
   * Stores a new record under the key it is known by elsewhere (an
   * appointment's account, under the appointment's id), with its event; the
   * guard and the proof as a change takes them. When a record has that key
   * already (another replica stored it first), nothing is written and the
   * duplicate-key error is thrown as is (or 409 `duplicate`), so that the
   * caller may change that record instead.
   */
  async insertAs(
    doc: Omit<Doc, '_event_ids'>,
    write: { event: EventSpec; guard?: () => Promise<void>; proof?: WriteProof },
  ): Promise<Doc> {
    const { collection, outbox } = this.options;
    const stored = await this.refusingDuplicates(() =>
      outbox.record(
        { ...write.event, collection: collection.collectionName, key: doc._id, proof: write.proof },
        async (eventId, options) => {
          const inserted = { ...doc, _event_ids: [eventId] } as Doc;
          await collection.insertOne(inserted as never, options);
          return inserted;
        },
        write.guard,
      ),
    );
    await this.options.written(stored);
    return stored;
  }

  /**
   * Changes or deletes one record, the steps in the module's order. `decide`
   * gets the record as found, may refuse the change (by throwing), and returns
   * the write, or null when nothing is to change; it runs again when the
   * record changed before the write. Answers the record as written (null when
   * deleted), or 'unchanged'. `notFound`: the 404 when the record is missing,
   * for a route that reaches it through something else of it (an appointment
   * of a session), where the record's own code would tell what exists.
   */
  change(
    id: number,
    decide: (existing: Doc) => Promise<RecordWrite<Doc> | null> | RecordWrite<Doc> | null,
    notFound: NotFoundCode = this.options.notFound,
    waitUntil?: number,
  ): Promise<Doc | null | 'unchanged'> {
    return this.queue.run(`${this.options.recordKind}:${id}`, () => {
      // `waitUntil`: a change that must not give up while its caller still waits (a booking in a rush).
      const giveUpAt = waitUntil ?? Date.now() + CHANGE_WAIT_MS;
      return retryPolicy({
        retryOn: (err) => startsAgain(err, giveUpAt),
        retries: Infinity,
        // At random, so that two replicas that keep colliding on one record drift apart.
        pause: pauses.doublingJittered(2, 50),
      }).execute(() => this.changeOnce(id, decide, notFound));
    });
  }

  private async changeOnce(
    id: number,
    decide: (existing: Doc) => Promise<RecordWrite<Doc> | null> | RecordWrite<Doc> | null,
    notFound: NotFoundCode,
  ): Promise<Doc | null | 'unchanged'> {
    const { collection, outbox } = this.options;
    let marking: Promise<{ failure?: unknown }> = Promise.resolve({});
    // Once the write has landed: the stale marking runs alongside the history's insert.
    const landed = (doc: Doc, before?: Doc) => {
      marking = this.options.written(doc, before).then(
        () => ({}),
        (failure: unknown) => ({ failure }),
      );
    };
    const existing = await this.options.find(id);
    if (!existing) throw fail(notFound);
    const write = await decide(existing);
    if (write === null) {
      // A replay may answer for a change whose cache marks its first try failed to store: they are stored again.
      await this.options.written(existing, existing);
      return 'unchanged';
    }
    const after: Doc | null = 'remove' in write ? null : { ...existing, ...write.set };
    const event = 'remove' in write ? write.event : await write.event(after!);
    const spec = { ...event, collection: collection.collectionName, key: existing._id };
    if ('remove' in write) {
      await outbox.record({ ...spec, proof: 'absent' }, async (_eventId, options) => {
        const result = await collection.deleteOne(asFoundFilter(existing), options);
        if (result.deletedCount === 0) throw new ChangedMeanwhile();
        landed(existing);
      });
    } else {
      await this.refusingDuplicates(() =>
        outbox.record(
          { ...spec, ...(write.proof ? { proof: write.proof } : {}) },
          async (eventId, options, proof) => {
            const matched = await this.updates.apply({
              filter: asFoundFilter(existing, this.options.stillWritable),
              update: { $set: { ...write.set, _event_ids: withEventId(existing._event_ids, eventId) } },
              sendBy: Date.now() + (options.maxTimeMS ?? Number.POSITIVE_INFINITY),
              // The sweeper's proof of this write: a change's is always of its own record.
              landed: proof.filter,
            });
            if (!matched) throw new ChangedMeanwhile();
            landed(after!, existing);
          },
          write.guard,
        ),
      );
    }
    const { failure } = await marking;
    if (failure !== undefined) throw failure;
    return after;
  }

  private async refusingDuplicates<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (this.options.duplicate !== undefined && isDuplicateKeyError(err)) throw fail(this.options.duplicate);
      throw err;
    }
  }
}
