/**
 * The embedded database server's patches (tools/ferretdb/patches): lookups,
 * reads and deletes by `_id` and by `_id: {$in}` go through the `_id` index
 * (deletes without reading the documents) and do exactly what the unpatched
 * server would; an update command of many statements does not exhaust the
 * server's connection pool, nor do many concurrent updates waiting for their
 * turn to write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoBulkWriteError, MongoClient, type Collection } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { writeErrorsOf } from '@clinic/service-kit/storage';

interface Doc {
  _id: string | number;
  n: number;
  pad: string;
}

let dir: string;
let infra: Infrastructure;
let mongo: MongoClient;
let docs: Collection<Doc>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-ferretdb-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  mongo = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000 });
  docs = mongo.db('pushdown_test').collection<Doc>('docs');
  await docs.insertMany(Array.from({ length: 500 }, (_, n) => ({ _id: String(n), n, pad: 'x'.repeat(200) })));
  await docs.insertOne({ _id: 7, n: -7, pad: '' }); // a numeric _id next to the string "7"
});
afterAll(async () => {
  await mongo?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function pushedDown(filter: object): Promise<boolean> {
  const plan = await docs.find(filter).explain();
  return plan.filterPushdown === true;
}

it('is the embedded FerretDB', async () => {
  const info = await mongo.db('admin').command({ buildInfo: 1 });
  expect(info).toHaveProperty('ferretdbVersion');
});

it('answers _id equality and _id $in of strings through the index', async () => {
  expect(await pushedDown({ _id: '42' })).toBe(true);
  expect(await pushedDown({ _id: '42', n: 42 })).toBe(true);
  expect(await pushedDown({ _id: { $in: ['1', '2', '499'] } })).toBe(true);
  expect(await pushedDown({ n: 42 })).toBe(false);
  expect(await pushedDown({ _id: { $in: ['1', 7] } })).toBe(false); // mixed types: the full scan decides
  expect(await pushedDown({ _id: { $in: [] } })).toBe(false);
});

it('returns exactly the documents the filter names', async () => {
  const ids = async (filter: object) =>
    (await docs.find(filter, { projection: { _id: 1 } }).toArray()).map((d) => d._id).sort();
  expect(await ids({ _id: { $in: ['3', '1', '2', 'missing'] } })).toEqual(['1', '2', '3']);
  expect(await ids({ _id: { $in: ['7'] } })).toEqual(['7']);
  const mixed = await ids({ _id: { $in: ['7', 7] } });
  expect(mixed).toHaveLength(2);
  expect(mixed).toEqual(expect.arrayContaining([7, '7']));
  expect(await ids({ _id: { $in: ['8', '9'] }, n: 9 })).toEqual(['9']);
  expect(await ids({ _id: '10', n: 11 })).toEqual([]);
});

it('deletes by _id $in only the named documents', async () => {
  const result = await docs.deleteMany({ _id: { $in: ['100', '101', 'missing'] } });
  expect(result.deletedCount).toBe(2);
  expect(await docs.countDocuments({})).toBe(499);
  expect(await docs.findOne({ _id: '100' })).toBeNull();
  expect(await docs.findOne({ _id: '102' })).not.toBeNull();
  expect(await docs.findOne({ _id: 7 })).not.toBeNull();
});

it('deletes one by _id, and falls back to reading for other filters', async () => {
  expect((await docs.deleteOne({ _id: '200' })).deletedCount).toBe(1);
  expect((await docs.deleteOne({ _id: '200' })).deletedCount).toBe(0);
  // Limited to one with several ids: the server picks one of them.
  expect((await docs.deleteOne({ _id: { $in: ['201', '202'] } })).deletedCount).toBe(1);
  expect(await docs.countDocuments({ _id: { $in: ['201', '202'] } })).toBe(1);
  // Mixed types and extra conditions are filtered document by document.
  expect((await docs.deleteMany({ _id: { $in: ['7', 7] } })).deletedCount).toBe(2);
  expect((await docs.deleteMany({ _id: '300', n: 999 })).deletedCount).toBe(0);
  expect((await docs.deleteMany({ _id: '300', n: 300 })).deletedCount).toBe(1);
  expect(await docs.countDocuments({})).toBe(494);
});

it('applies an update command of more statements than the server has connections (patch 0008)', async () => {
  // Unpatched, each statement kept its query's pooled connection until the command ended: the
  // 101st statement waited for a connection forever, and so did every other client.
  const upserts = Array.from({ length: 250 }, (_, i) => ({
    updateOne: { filter: { _id: `bulk-${i}` }, update: { $set: { n: i, pad: 'bulk' } }, upsert: true },
  }));
  const result = await docs.bulkWrite(upserts, { ordered: false });
  expect(result.upsertedCount).toBe(250);
  expect(await docs.countDocuments({ pad: 'bulk' })).toBe(250);
  const again = await docs.bulkWrite(
    upserts.map((u) => ({ updateOne: { ...u.updateOne, update: { $set: { n: -1, pad: 'bulk' } } } })),
    { ordered: false },
  );
  expect(again.modifiedCount).toBe(250);
}, 30_000);

it('finishes more concurrent updates and findAndModify commands than the server has connections (patch 0009)', async () => {
  // Unpatched, each update held its read's pooled connection while it waited for its turn to write
  // (patch 0007): with over 100 of them in flight, the writer whose turn it was found no connection
  // left, and the server stopped answering everyone.
  const client = await MongoClient.connect(infra.mongoUrl, {
    maxPoolSize: 400,
    maxConnecting: 400,
    serverSelectionTimeoutMS: 2000,
  });
  try {
    const coll = client.db('pushdown_test').collection<Doc>('turns');
    await coll.insertMany(Array.from({ length: 300 }, (_, n) => ({ _id: `turn-${n}`, n, pad: 'before' })));
    // Every write below on a connection of its own, open before they start (as a busy service's pool is).
    await Promise.all(Array.from({ length: 300 }, () => coll.find({ n: -1 }).toArray()));
    const writes = Array.from({ length: 300 }, (_, n) =>
      n % 3 === 0
        ? coll.findOneAndUpdate({ n }, { $set: { pad: 'after' } })
        : coll.updateOne({ n }, { $set: { pad: 'after' } }),
    );
    await Promise.all(writes);
    expect(await coll.countDocuments({ pad: 'after' })).toBe(300);
  } finally {
    await client.close();
  }
}, 60_000);

describe('read-then-write statements take turns per collection (patch 0013)', () => {
  // Unpatched, an update read the document, then replaced it, and checked its filter only on the read:
  // concurrent writers of one document each wrote over a version they had not read. The client's pool
  // sends concurrent commands on connections of their own.

  it('loses none of 40 concurrent $inc of one document, nor of findAndModify', async () => {
    await docs.insertOne({ _id: 'inc', n: 0, pad: '' });
    await Promise.all([
      ...Array.from({ length: 20 }, () => docs.updateOne({ _id: 'inc' }, { $inc: { n: 1 } })),
      ...Array.from({ length: 20 }, () => docs.findOneAndUpdate({ _id: 'inc' }, { $inc: { n: 1 } })),
    ]);
    expect((await docs.findOne({ _id: 'inc' }))!.n).toBe(40);
  });

  it('lands exactly one of 20 concurrent updates that name the same version', async () => {
    await docs.insertOne({ _id: 'cas', n: 0, pad: 'v0' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        docs.updateOne({ _id: 'cas', pad: 'v0' }, { $set: { pad: `v${i + 1}`, n: i + 1 } }),
      ),
    );
    expect(results.reduce((sum, r) => sum + r.modifiedCount, 0)).toBe(1);
    const winner = results.findIndex((r) => r.modifiedCount === 1);
    expect(await docs.findOne({ _id: 'cas' })).toMatchObject({ pad: `v${winner + 1}`, n: winner + 1 });
  });

  it('deletes by filter only what still matches while concurrent updates move documents out of it', async () => {
    await docs.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: `del-${i}`, n: 1000 + i, pad: 'old' })));
    const updates = Array.from({ length: 20 }, (_, i) =>
      docs.updateOne({ _id: `del-${i}`, pad: 'old' }, { $set: { pad: 'new' } }),
    );
    const deleted = docs.deleteMany({ n: { $gte: 1000, $lt: 1020 }, pad: 'old' });
    const moved = (await Promise.all(updates)).reduce((sum, r) => sum + r.modifiedCount, 0);
    // Each document was either moved (and kept) or deleted, never both nor neither.
    expect((await deleted).deletedCount + moved).toBe(20);
    expect(await docs.countDocuments({ n: { $gte: 1000, $lt: 1020 } })).toBe(moved);
  });
});

describe('an insert reports exactly what it stored (patch 0014)', () => {
  // The server inserts in batches of 100 and, when one fails, one document at a time up to the failure; it then
  // went on to insert the next batch whole. Bill creation numbers again whatever the reply says was not stored, so
  // each of those documents was stored twice (numbered twice, or leaving a number unused).
  it('stores exactly the documents before the failure, across the server’s batches of 100, and reports it alone', async () => {
    const target = mongo.db('pushdown_test').collection<{ _id: unknown; n: number }>('ordered');
    await target.createIndex({ n: 1 }, { unique: true });
    await target.insertOne({ _id: 'taken', n: 150 });
    const attempt: Array<{ _id: unknown; n: number }> = Array.from({ length: 350 }, (_, i) => ({ _id: `d${i}`, n: i }));
    // Invalid, in the same batch of the server's as the failure but after it: never tried, so not reported.
    attempt[170]!._id = ['an', 'array'];
    const failure = (await target
      .insertMany(attempt, { ordered: true })
      .catch((err: unknown) => err)) as MongoBulkWriteError;
    expect(failure).toBeInstanceOf(MongoBulkWriteError);
    expect(writeErrorsOf(failure)?.map((e) => [e.index, e.code])).toEqual([[150, 11000]]);
    const stored = await target.find({ n: { $ne: 150 } }, { projection: { n: 1 } }).toArray();
    expect(stored.map((d) => d.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 150 }, (_, i) => i));
  });

  it('reports a document refused for another reason as a write error, with what was stored before it', async () => {
    // An array in a field of a typed index is refused by the embedded server; before, the whole command
    // failed although the documents before it were stored.
    for (const ordered of [true, false]) {
      const target = mongo.db('pushdown_test').collection<{ _id: string; g: unknown }>(`refused_${ordered}`);
      await target.createIndex({ g: 1 }, { name: 'by_g' });
      const attempt: Array<{ _id: string; g: unknown }> = Array.from({ length: 350 }, (_, i) => ({
        _id: `d${i}`,
        g: i,
      }));
      attempt[150]!.g = [1, 2];
      const failure = (await target
        .insertMany(attempt, { ordered })
        .catch((err: unknown) => err)) as MongoBulkWriteError;
      expect(failure).toBeInstanceOf(MongoBulkWriteError);
      expect(writeErrorsOf(failure)?.map((e) => [e.index, e.code])).toEqual([[150, 1]]);
      expect(await target.countDocuments({})).toBe(ordered ? 150 : 349);
    }
  });

  it('still goes on past a failure when unordered', async () => {
    const target = mongo.db('pushdown_test').collection<{ _id: string; n: number }>('unordered');
    await target.createIndex({ n: 1 }, { unique: true });
    await target.insertOne({ _id: 'taken', n: 150 });
    const attempt = Array.from({ length: 350 }, (_, i) => ({ _id: `d${i}`, n: i }));
    const failure = (await target
      .insertMany(attempt, { ordered: false })
      .catch((err: unknown) => err)) as MongoBulkWriteError;
    expect(writeErrorsOf(failure)?.map((e) => [e.index, e.code])).toEqual([[150, 11000]]);
    expect(await target.countDocuments({})).toBe(350);
  });
});
