import {
  MongoClient,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Collection,
  type Db,
  type Document,
  type IndexDescription,
} from 'mongodb';
import type { Logger } from './logger';
import { KeyedMutex } from './mutex';
import { installMongoDriverFix } from './mongo-driver-fix';
import { mongoMonitoringOptions, observeDatabaseCommands } from './metrics';

export interface MongoHandle {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
}

/**
 * Connects with short timeouts, so that a database outage turns into a 500
 * from the service well before the gateway's NATS timeout, and retries the
 * first connection until the server is reachable.
 */
export async function connectMongo(url: string, dbName: string, log: Logger, appName: string): Promise<MongoHandle> {
  installMongoDriverFix();
  const client = new MongoClient(url, {
    appName,
    serverSelectionTimeoutMS: 2_000,
    connectTimeoutMS: 2_000,
    socketTimeoutMS: 4_000,
    maxPoolSize: 32,
    // Notice a returning server within a second (the default is ten), by polling:
    // FerretDB does not stream topology changes.
    heartbeatFrequencyMS: 1_000,
    serverMonitoringMode: 'poll',
    ...mongoMonitoringOptions(),
  });
  logTopologyChanges(client, log);
  observeDatabaseCommands(client);
  for (let attempt = 1; ; attempt++) {
    try {
      await client.connect();
      break;
    } catch (err) {
      log.warn({ err, attempt }, 'database not reachable yet; retrying');
      await new Promise((resolve) => setTimeout(resolve, Math.min(200 * attempt, 2_000)));
    }
  }
  log.info({ db: dbName }, 'database connected');
  return { client, db: client.db(dbName), close: () => client.close() };
}

/** One log line when the driver's view of the server changes, so an outage and its end are visible to ops. */
function logTopologyChanges(client: MongoClient, log: Logger): void {
  client.on('serverDescriptionChanged', (event) => {
    if (event.previousDescription.type === event.newDescription.type) return;
    log.warn(
      { address: event.address, from: event.previousDescription.type, to: event.newDescription.type, cause: event.newDescription.error?.message },
      'database server state changed',
    );
  });
  client.on('serverHeartbeatFailed', (event) => log.info({ address: event.connectionId, duration_ms: event.duration, cause: event.failure.message }, 'database heartbeat failed'));
  client.on('connectionPoolCleared', (event) => log.info({ address: event.address }, 'database connection pool cleared'));
}

/**
 * Document keys are the decimal string of the integer id: FerretDB v1 uses its
 * primary-key index only for `_id` equality on strings and ObjectIds, so
 * string keys keep lookups by id fast on both FerretDB and MongoDB.
 */
export const docKey = (id: number): string => String(id);

/**
 * MongoDB reports code 11000; FerretDB v1 does on insert but reports a unique
 * violation on update as an internal error carrying SQLite's message.
 */
export function isDuplicateKeyError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code === 11000 || code === 11001) return true;
  return typeof message === 'string' && /E11000|UNIQUE constraint failed/.test(message);
}

/**
 * Documents by key, with one `_id: {$in: [...]}` query. FerretDB v1 read and
 * decoded the whole collection for such a filter; the embedded server's patch
 * (tools/ferretdb/patches/0002) makes it use the `_id` index, as MongoDB does.
 */
export async function findByKeys<T extends Document>(
  collection: Collection<T>,
  keys: string[],
  projection?: Document,
): Promise<T[]> {
  const found: T[] = [];
  for (const chunk of inChunks([...new Set(keys)], KEYS_PER_QUERY)) {
    found.push(...((await collection.find({ _id: { $in: chunk } } as never, { projection }).toArray()) as T[]));
  }
  return found;
}

/** Deletes documents by `_id`, in slices the embedded server deletes through its index (patch 0003). */
export async function deleteByKeys<T extends Document>(collection: Collection<T>, keys: string[]): Promise<number> {
  let deleted = 0;
  for (const chunk of inChunks([...new Set(keys)], KEYS_PER_QUERY)) {
    deleted += (await collection.deleteMany({ _id: { $in: chunk } } as never)).deletedCount;
  }
  return deleted;
}

/** `_id` values one query lists at most: the embedded server reads more through its index in several queries (patch 0002). */
const KEYS_PER_QUERY = 500;

/**
 * A list cut into slices for `$in`: the embedded server writes at most 10,000
 * values of an `$in` in SQL (patch 0004), and beyond reads the whole collection.
 */
export function inChunks<T>(values: T[], size = 5_000): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < values.length; i += size) chunks.push(values.slice(i, i + size));
  return chunks;
}

/** The database could not be reached at all (as opposed to refusing one operation). */
export function isConnectivityError(err: unknown): boolean {
  return (
    err instanceof MongoNetworkError ||
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNotConnectedError ||
    err instanceof MongoTopologyClosedError ||
    (err instanceof Error && err.name === 'MongoPoolClearedError')
  );
}

/**
 * Creates indexes idempotently, one per command: FerretDB v1.24 crashes the
 * connection when a single createIndexes command names several indexes that
 * already exist, which is what every restart would send.
 */
export async function ensureIndexes<T extends Document>(collection: Collection<T>, indexes: IndexDescription[]): Promise<void> {
  for (const index of indexes) await collection.createIndexes([index]);
}

interface CounterDoc {
  _id: string;
  seq: number;
}

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
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await this.counters.findOneAndUpdate(
          { _id: name },
          { $inc: { seq: size } },
          { upsert: true, returnDocument: 'after' },
        );
        if (!doc) throw new Error(`Counter ${name} returned no document`);
        return doc.seq;
      } catch (err) {
        // Two first-ever upserts race on the counter's own _id; the loser retries.
        if (isDuplicateKeyError(err) && attempt < 5) continue;
        throw err;
      }
    }
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
  for (let attempt = 1; ; attempt++) {
    const id = await ids.next(counterName);
    try {
      return await insert(id);
    } catch (err) {
      if (!isDuplicateKeyError(err) || attempt >= maxAttempts) throw err;
      const taken = await collection.findOne({ _id: docKey(id) } as never, { projection: { _id: 1 } });
      if (!taken) throw err;
      await ids.skipPast(counterName, id);
    }
  }
}
