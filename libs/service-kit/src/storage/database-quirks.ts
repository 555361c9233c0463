/**
 * The kit's side of the database's quirks: what FerretDB v1 (the embedded
 * server) does unlike MongoDB 7, worked around so that the same code runs on
 * both. Each service's storage layer reaches these through its own seam
 * (services/<service>/src/storage/database-quirks.ts), which adds the
 * service's own workarounds.
 */
import {
  MongoBulkWriteError,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type IndexDescription,
  type WriteError,
} from 'mongodb';

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
 * The per-document errors of a bulk write that refused some documents (the
 * driver gives one error or a list), or null for any other failure: the
 * connection was lost, say, and which documents were written is unknown.
 */
export function writeErrorsOf(err: unknown): WriteError[] | null {
  if (!(err instanceof MongoBulkWriteError) || !err.writeErrors) return null;
  const errors = [err.writeErrors].flat();
  return errors.length > 0 ? errors : null;
}

/** `_id` values one query lists at most: the embedded server reads more through its index in several queries (patch 0002). */
const KEYS_PER_QUERY = 500;

/**
 * Documents by key, with one `_id: {$in: [...]}` query. FerretDB v1 read and
 * decoded the whole collection for such a filter; the embedded server's patch
 * (tools/ferretdb/patches/0002) makes it use the `_id` index, as MongoDB does.
 */
export async function findByKeys<T extends Document>(
  collection: Collection<T>,
  keys: string[],
  { projection, filter }: { projection?: Document; filter?: Filter<T> } = {},
): Promise<T[]> {
  const found: T[] = [];
  for (const chunk of inChunks([...new Set(keys)], KEYS_PER_QUERY)) {
    const query = { ...filter, _id: { $in: chunk } } as Filter<T>;
    found.push(...((await collection.find(query, { projection }).toArray()) as T[]));
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

/**
 * A list cut into slices for `$in`: the embedded server writes at most 10,000
 * values of an `$in` in SQL (patch 0004), and beyond reads the whole collection.
 */
export function inChunks<T>(values: T[], size = 5_000): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < values.length; i += size) chunks.push(values.slice(i, i + size));
  return chunks;
}

/**
 * An index, and whether the embedded server should also search its last field for literal
 * substrings: FerretDB keeps a search table for that when createIndexes asks for it with the
 * non-standard option `substringSearch` (tools/ferretdb patch 0018). MongoDB rejects unknown
 * index options and answers such a search by scanning the index, so it gets the plain index.
 */
export type IndexSpec = IndexDescription & { substringSearch?: boolean };

/**
 * Creates indexes idempotently, one per command: FerretDB v1.24 crashes the
 * connection when a single createIndexes command names several indexes that
 * already exist, which is what every restart would send. An index asking for
 * substring search needs `db`, to ask which server it is.
 */
export async function ensureIndexes<T extends Document>(
  collection: Collection<T>,
  indexes: IndexSpec[],
  db?: Db,
): Promise<void> {
  for (const { substringSearch, ...index } of indexes) {
    if (!substringSearch) {
      await collection.createIndexes([index]);
      continue;
    }
    if (!db) throw new Error(`index ${index.name}: substringSearch needs the database, to ask which server it is`);
    // The driver drops index options it does not know, so the command is sent as it is.
    if (await isFerretDB(db)) {
      await db.command({ createIndexes: collection.collectionName, indexes: [{ ...index, substringSearch: true }] });
    } else {
      await collection.createIndexes([index]);
    }
  }
}

/** Whether the server is FerretDB, whose buildInfo names its version besides MongoDB's. */
export async function isFerretDB(db: Db): Promise<boolean> {
  const info = await db.admin().command({ buildInfo: 1 });
  return typeof info.ferretdbVersion === 'string';
}
