/**
 * The one write path of a service's records (a bill, a charge, a session):
 * every create, change and delete goes through here, so that each one takes
 * the same steps in the same order.
 *
 * A change: under the record's lock, find it (404 when it is gone), let the
 * caller check it and say what changes, record the event in the outbox, write
 * the change with the event's id on the document (404 when the record no
 * longer matches, 409 when a unique index refuses it), then mark the cached
 * reads it changed as stale. The marking and the lock's release start as
 * soon as the write has landed and run alongside the history's insert: each
 * is a round trip and a write transaction of its own on the embedded server,
 * and none needs another's result. The answer waits for all of them.
 */
import type { Collection, Db, Filter, UpdateFilter } from 'mongodb';
import type { VersionedCache } from './versioned-cache';
import type { ClinicClock } from './clock';
import { conflict, notFound } from './errors';
import { withFreshId, type IdAllocator } from './id-allocator';
import { isDuplicateKeyError } from './mongo';
import type { Outbox } from './outbox';
import { withEventId, type EventSpec } from './outbox-entries';
import type { RecordLocks } from './record-locks';

/** What a service's storage layer stands on (startService gives each). */
export interface StorageDeps {
  db: Db;
  ids: IdAllocator;
  outbox: Outbox;
  locks: RecordLocks;
  cache: VersionedCache;
  clock: ClinicClock;
}

/** What every record keeps: its key, its integer id and the ids of its latest events (see withEventId). */
export interface StoredRecord {
  _id: string;
  id: number;
  _event_ids: string[];
}

/** What a caller decided to do with a record it found: change some fields, or delete it; each with its event. */
export type RecordWrite<Doc> = { set: Partial<Doc>; event: EventSpec } | { remove: true; event: EventSpec };

export interface RecordWriterOptions<Doc extends StoredRecord> {
  collection: Collection<Doc>;
  /** The kind of record, as its lock names it: `bill` locks `bill:<id>`. */
  lockName: string;
  /** The id counter of new records. */
  counter: string;
  ids: IdAllocator;
  outbox: Outbox;
  locks: RecordLocks;
  /** The record as a change may find it: null when it does not exist for the caller (deleted, hidden). */
  find(id: number): Promise<Doc | null>;
  /** What the record must still match when it is written (besides its `_id`): it is still live, say. */
  stillWritable?: Filter<Doc>;
  /** Answered with 404 when the record is missing. */
  notFoundMessage: string;
  /** Answered with 409 when a unique index (other than `_id`) refuses a write; without it the error is thrown as is. */
  duplicateMessage?: string;
  /**
   * After a write: marks the cached reads that show this record as stale.
   * `before` is the record as the write found it, for a change (absent for a
   * new record or a deletion).
   */
  written(doc: Doc, before?: Doc): Promise<void>;
}

export class RecordWriter<Doc extends StoredRecord> {
  constructor(private readonly options: RecordWriterOptions<Doc>) {}

  /**
   * Stores a new record under a fresh id with its event. `build` makes the
   * document (its `_event_ids` are set here) and its event.
   */
  async insert(build: (id: number) => Promise<{ doc: Doc; event: EventSpec }>): Promise<Doc> {
    const { collection, counter, ids, outbox } = this.options;
    const doc = await this.refusingDuplicates(() =>
      withFreshId(ids, counter, collection, async (id) => {
        const { doc, event } = await build(id);
        await outbox.record({ ...event, collection: collection.collectionName, key: doc._id }, (eventId) =>
          collection.insertOne({ ...doc, _event_ids: [eventId] } as never),
        );
        return doc;
      }),
    );
    await this.options.written(doc);
    return doc;
  }

  /**
   * Changes or deletes one record, the steps in the module's order. `decide`
   * gets the record as found, may refuse the change (by throwing), and returns
   * the write, or null when nothing is to change. Answers the record as written
   * (null when deleted), or 'unchanged'.
   */
  async change(
    id: number,
    decide: (existing: Doc) => Promise<RecordWrite<Doc> | null> | RecordWrite<Doc> | null,
  ): Promise<Doc | null | 'unchanged'> {
    const { collection, locks, lockName, outbox, notFoundMessage } = this.options;
    let marking: Promise<{ failure?: unknown }> = Promise.resolve({});
    const markStale = (doc: Doc, before?: Doc) => {
      marking = this.options.written(doc, before).then(
        () => ({}),
        (failure: unknown) => ({ failure }),
      );
    };
    const outcome = await locks.run(lockName, id, async (releaseLock) => {
      // Once the write has landed, nothing left needs the lock.
      const landed = (doc: Doc, before?: Doc) => {
        releaseLock();
        markStale(doc, before);
      };
      const existing = await this.options.find(id);
      if (!existing) throw notFound(notFoundMessage);
      const write = await decide(existing);
      if (write === null) return 'unchanged';
      const spec = { ...write.event, collection: collection.collectionName, key: existing._id };
      if ('remove' in write) {
        await outbox.record({ ...spec, proof: 'absent' }, async () => {
          const result = await collection.deleteOne({ _id: existing._id } as Filter<Doc>);
          if (result.deletedCount === 0) throw notFound(notFoundMessage);
          landed(existing);
        });
        return null;
      }
      const after: Doc = { ...existing, ...write.set };
      await this.refusingDuplicates(() =>
        outbox.record(spec, async (eventId) => {
          const result = await collection.updateOne(
            { ...this.options.stillWritable, _id: existing._id } as Filter<Doc>,
            { $set: { ...write.set, _event_ids: withEventId(existing._event_ids, eventId) } } as UpdateFilter<Doc>,
          );
          if (result.matchedCount === 0) throw notFound(notFoundMessage);
          landed(after, existing);
        }),
      );
      return after;
    });
    const { failure } = await marking;
    if (failure !== undefined) throw failure;
    return outcome;
  }

  private async refusingDuplicates<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (this.options.duplicateMessage !== undefined && isDuplicateKeyError(err))
        throw conflict(this.options.duplicateMessage);
      throw err;
    }
  }
}
