import type { Collection, Db, Document } from 'mongodb';
import { docKey, isDuplicateKeyError } from './database-quirks';
import { KeyedMutex } from '../concurrency/mutex';
import { retryPolicy } from '../process/retry';

interface CounterDoc {
  _id: string;
  seq: number;
}

/** Two first-ever upserts of a counter race on its own _id: the loser tries again. */
const counterUpsertRace = retryPolicy({ retryOn: isDuplicateKeyError, retries: 5 });

/** Ids reserved per counter write. Ids left in a block when a process stops are never used: ids may skip, bill numbers never do. */
export const ID_BLOCK_SIZE = 10;

/**
 * Integer ids from a counters collection, reserved ten at a time. FerretDB v1
 * applies `$inc` as a read-modify-write, so two processes may reserve the same
 * block; the unique `_id` of the target collection rejects the second insert,
 * and the caller draws again past the taken id (see withFreshId). Within one
 * process a mutex keeps reservations apart.
 */
export class IdAllocator {
  private readonly mutex = new KeyedMutex();
  private readonly counters: Collection<CounterDoc>;
  private readonly blocks = new Map<string, { next: number; last: number }>();

  constructor(db: Db) {
    this.counters = db.collection<CounterDoc>('counters');
  }

  next(name: string): Promise<number> {
    return this.mutex.run(name, async () => {
      const block = this.blocks.get(name);
      if (block && block.next <= block.last) return block.next++;
      const last = await this.reserve(name);
      this.blocks.set(name, { next: last - ID_BLOCK_SIZE + 2, last });
      return last - ID_BLOCK_SIZE + 1;
    });
  }

  /** `count` new ids at once, in one counter write (for bulk inserts). */
  nextMany(name: string, count: number): Promise<number[]> {
    if (count <= ID_BLOCK_SIZE) return Promise.all(Array.from({ length: count }, () => this.next(name)));
    return this.mutex.run(name, async () => {
      const last = await this.reserve(name, count);
      return Array.from({ length: count }, (_, i) => last - count + 1 + i);
    });
  }

  /** After a collision: forget the block and move the counter past `id`. */
  async skipPast(name: string, id: number): Promise<void> {
    await this.mutex.run(name, async () => {
      this.blocks.delete(name);
      await this.counters.updateOne({ _id: name }, { $max: { seq: id } }, { upsert: true }).catch(() => undefined);
    });
  }

  private async reserve(name: string, size = ID_BLOCK_SIZE): Promise<number> {
    return counterUpsertRace.execute(async () => {
      const doc = await this.counters.findOneAndUpdate(
        { _id: name },
        { $inc: { seq: size } },
        { upsert: true, returnDocument: 'after' },
      );
      if (!doc) throw new Error(`Counter ${name} returned no document`);
      return doc.seq;
    });
  }
}

/**
 * Runs `insert` with a newly drawn id, drawing again when that id turns out to
 * be taken (only possible when replicas race on FerretDB's counters). A
 * duplicate on any other unique index is the caller's to interpret.
 */
export async function withFreshId<T, D extends Document>(
  ids: IdAllocator,
  counterName: string,
  collection: Collection<D>,
  insert: (id: number) => Promise<T>,
  maxAttempts = 10,
): Promise<T> {
  const drawAgain = retryPolicy({ retryOn: (err) => err instanceof IdTaken, retries: maxAttempts - 1 });
  try {
    return await drawAgain.execute(async ({ attempt }) => {
      const id = await ids.next(counterName);
      try {
        return await insert(id);
      } catch (err) {
        if (!isDuplicateKeyError(err) || attempt + 1 >= maxAttempts) throw err;
        if (!(await movePastIfTaken(ids, counterName, collection, id))) throw err;
        throw new IdTaken(err);
      }
    });
  } catch (err) {
    throw err instanceof IdTaken ? err.duplicate : err;
  }
}

/**
 * Whether a document with `id` is stored already (the id was drawn twice); if
 * so, the counter is moved past it, so that the next draw is a fresh id.
 */
export async function movePastIfTaken<D extends Document>(
  ids: IdAllocator,
  counterName: string,
  collection: Collection<D>,
  id: number,
): Promise<boolean> {
  const taken = await collection.findOne({ _id: docKey(id) } as never, { projection: { _id: 1 } });
  if (taken) await ids.skipPast(counterName, id);
  return taken !== null;
}

/** The id drawn was taken already (its counter has been moved past it). */
class IdTaken extends Error {
  constructor(readonly duplicate: unknown) {
    super('id taken');
  }
}
