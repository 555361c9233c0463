/**
 * Writes as the services make them: compare-and-set updates (RecordWriter),
 * upserts with $setOnInsert and $max (day totals, bill-number hints, counters),
 * the counters' findOneAndUpdate with $inc, reference data's conditional
 * replaceOne upsert, ordered and unordered bulk writes (the outbox, history,
 * day totals) and deletes by key. Expected as MongoDB 7 documents them: the
 * counts in each result, E11000 (code 11000) for a unique violation on insert,
 * update or upsert, and which documents an ordered or unordered write stored.
 */
import { MongoBulkWriteError, type Collection } from 'mongodb';
import { isDuplicateKeyError } from '@clinic/service-kit/internal';
import { openServer, refusal, type ConformanceServer } from './server';

interface Doc {
  _id: string;
  n?: number;
  code?: string;
  status?: string;
  _event_ids?: string[];
  last?: number;
  seq?: number;
  _seq?: number;
  token?: string;
  name?: string;
  run?: string;
}

let server: ConformanceServer;
let fresh = 0;
async function collection(unique?: string): Promise<Collection<Doc>> {
  const c = server.db.collection<Doc>(`writes_${++fresh}`);
  if (unique) await c.createIndexes([{ key: { [unique]: 1 }, name: `${unique}_unique`, unique: true }]);
  return c;
}
/** A test of MongoDB's answer that the embedded server is known not to give (see tools/ferretdb/README.md). */
const knownDivergence = (name: string, fn: () => Promise<void>) =>
  (process.env.MONGO_URL ? it : it.failing)(`${name} (a known divergence of the embedded server)`, fn);
const stored = async (c: Collection<Doc>) => (await c.find({}).sort({ _id: 1 }).toArray()).map((d) => d._id);

beforeAll(async () => {
  server = await openServer('writes');
});
afterAll(() => server?.stop());

describe('compare-and-set updates', () => {
  it('match only the version found: a missing field, then the exact array written', async () => {
    const c = await collection();
    await c.insertOne({ _id: '1', status: 'active', n: 1 });
    const asFound = { _id: '1', status: 'active', _event_ids: { $exists: false } };
    const first = await c.updateOne(asFound, { $set: { n: 2, _event_ids: ['e1'] } });
    expect(first).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    expect((await c.updateOne(asFound, { $set: { n: 3 } })).matchedCount).toBe(0);
    // An array equality matches the whole array, in order.
    expect((await c.updateOne({ _id: '1', _event_ids: ['e2'] }, { $set: { n: 3 } })).matchedCount).toBe(0);
    const second = await c.updateOne({ _id: '1', _event_ids: ['e1'] }, { $set: { n: 3, _event_ids: ['e1', 'e2'] } });
    expect(second.matchedCount).toBe(1);
    expect(await c.findOne({ _id: '1' })).toEqual({ _id: '1', status: 'active', n: 3, _event_ids: ['e1', 'e2'] });
    // A condition on another field (stillWritable) that no longer holds: nothing matched, nothing changed.
    await c.updateOne({ _id: '1' }, { $set: { status: 'cancelled' } });
    expect((await c.updateOne({ _id: '1', status: 'active' }, { $set: { n: 4 } })).matchedCount).toBe(0);
    expect((await c.deleteOne({ _id: '1', _event_ids: ['e1'] })).deletedCount).toBe(0);
    expect((await c.deleteOne({ _id: '1', _event_ids: ['e1', 'e2'] })).deletedCount).toBe(1);
  });

  it('count a match that changes nothing as matched, not modified', async () => {
    const c = await collection();
    await c.insertOne({ _id: '1', n: 1 });
    expect(await c.updateOne({ _id: '1' }, { $set: { n: 1 } })).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
  });

  it('refuse an update that takes a unique value another document holds, changing nothing', async () => {
    const c = await collection('code');
    await c.insertMany([
      { _id: '1', code: 'A' },
      { _id: '2', code: 'B' },
    ]);
    const err = await refusal(c.updateOne({ _id: '2' }, { $set: { code: 'A' } }));
    // What the services test (service-kit isDuplicateKeyError): E11000 from MongoDB, SQLite's message from FerretDB.
    expect(isDuplicateKeyError(err)).toBe(true);
    expect(await c.findOne({ _id: '2' })).toEqual({ _id: '2', code: 'B' });
  });

  // Known divergence (tools/ferretdb/README.md): FerretDB v1 fails the command with InternalError (1).
  // it.failing passes while the embedded server diverges, and fails once it is fixed: then drop the marker.
  knownDivergence('refuse an update that takes a unique value with code 11000', async () => {
    const c = await collection('code');
    await c.insertMany([
      { _id: '1', code: 'A' },
      { _id: '2', code: 'B' },
    ]);
    expect((await refusal(c.updateOne({ _id: '2' }, { $set: { code: 'A' } }))).code).toBe(11000);
  });
});

describe('upserts', () => {
  it('insert with $setOnInsert once, with the filter _id, and leave the document alone after', async () => {
    const c = await collection();
    const first = await c.updateOne({ _id: 'd1' }, { $setOnInsert: { token: 't1', n: 0 } }, { upsert: true });
    expect(first).toMatchObject({ matchedCount: 0, upsertedCount: 1, upsertedId: 'd1' });
    const again = await c.updateOne({ _id: 'd1' }, { $setOnInsert: { token: 't2', n: 5 } }, { upsert: true });
    expect(again).toMatchObject({ matchedCount: 1, modifiedCount: 0, upsertedCount: 0 });
    expect(await c.findOne({ _id: 'd1' })).toEqual({ _id: 'd1', token: 't1', n: 0 });
  });

  it('keep the greater value with $max, inserting the first', async () => {
    const c = await collection();
    await c.updateOne({ _id: '2093-01-01' }, { $max: { last: 7 } }, { upsert: true });
    await c.updateOne({ _id: '2093-01-01' }, { $max: { last: 3 } }, { upsert: true });
    expect(await c.findOne({ _id: '2093-01-01' })).toEqual({ _id: '2093-01-01', last: 7 });
    await c.updateOne({ _id: '2093-01-01' }, { $max: { last: 9 } }, { upsert: true });
    expect(await c.findOne({ _id: '2093-01-01' })).toEqual({ _id: '2093-01-01', last: 9 });
  });

  it('reserve counter blocks with $inc, answering the document after the update', async () => {
    const c = await collection();
    const reserve = () =>
      c.findOneAndUpdate({ _id: 'bill' }, { $inc: { seq: 10 } }, { upsert: true, returnDocument: 'after' });
    expect(await reserve()).toEqual({ _id: 'bill', seq: 10 });
    expect(await reserve()).toEqual({ _id: 'bill', seq: 20 });
  });

  it('replace an older version or the same one, and refuse to insert over a newer one with E11000', async () => {
    const c = await collection();
    const apply = (seq: number, name: string) =>
      c.replaceOne({ _id: '5', _seq: { $lte: seq } }, { name, _seq: seq }, { upsert: true });
    expect(await apply(3, 'three')).toMatchObject({ upsertedCount: 1, upsertedId: '5' });
    expect(await apply(4, 'four')).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    expect(await apply(4, 'four')).toMatchObject({ matchedCount: 1, upsertedCount: 0 });
    expect(await c.findOne({ _id: '5' })).toEqual({ _id: '5', name: 'four', _seq: 4 });
    const err = await refusal(apply(2, 'two'));
    expect(err.code).toBe(11000);
    expect(await c.findOne({ _id: '5' })).toEqual({ _id: '5', name: 'four', _seq: 4 });
  });
});

describe('inserts and bulk writes', () => {
  it('refuse a second document with the same _id or unique field, with E11000', async () => {
    const c = await collection('code');
    await c.insertOne({ _id: '1', code: 'A' });
    expect((await refusal(c.insertOne({ _id: '1', code: 'Z' }))).code).toBe(11000);
    expect((await refusal(c.insertOne({ _id: '2', code: 'A' }))).code).toBe(11000);
    expect(await stored(c)).toEqual(['1']);
  });

  it('store every other document of an unordered insert, naming each refused one by index', async () => {
    const c = await collection();
    await c.insertOne({ _id: '2' });
    const err = await refusal(
      c.insertMany([{ _id: '1' }, { _id: '2' }, { _id: '3' }, { _id: '1' }], { ordered: false }),
    );
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    const errors = [(err as unknown as MongoBulkWriteError).writeErrors].flat();
    expect(errors.map((e) => [e.index, e.code])).toEqual([
      [1, 11000],
      [3, 11000],
    ]);
    expect(await stored(c)).toEqual(['1', '2', '3']);
  });

  it('stop an ordered insert at its first failure', async () => {
    const c = await collection();
    await c.insertOne({ _id: '2' });
    const err = await refusal(c.insertMany([{ _id: '1' }, { _id: '2' }, { _id: '3' }], { ordered: true }));
    expect([(err as unknown as MongoBulkWriteError).writeErrors].flat().map((e) => e.index)).toEqual([1]);
    expect(await stored(c)).toEqual(['1', '2']);
  });

  it('count the upserts and matches of a bulk write of updateOne upserts', async () => {
    const c = await collection();
    await c.insertOne({ _id: 'm', token: 'old' });
    const result = await c.bulkWrite(
      ['a', 'b', 'm'].map((_id) => ({
        updateOne: { filter: { _id }, update: { $set: { token: 'new' } }, upsert: true },
      })),
      { ordered: true },
    );
    expect(result).toMatchObject({ upsertedCount: 2, matchedCount: 1, modifiedCount: 1 });
    expect(await c.countDocuments({ token: 'new' })).toBe(3);
  });

  // Known divergence: FerretDB v1 ignores `ordered` for updates; the first refused statement ends the command
  // (the later ones are not applied) and is reported at index 0. Billing's day registry sends such a write.
  knownDivergence(
    'apply the other operations of an unordered bulk write, naming the refused one by index',
    async () => {
      const c = await collection('code');
      await c.insertOne({ _id: 'x', code: 'TAKEN' });
      const upserts = ['A', 'TAKEN', 'C'].map((code) => ({
        updateOne: { filter: { _id: code.toLowerCase() }, update: { $set: { code } }, upsert: true },
      }));
      const err = await refusal(c.bulkWrite(upserts, { ordered: false }));
      const errors = [(err as unknown as MongoBulkWriteError).writeErrors].flat();
      expect(errors.map((e) => [e.index, e.code])).toEqual([[1, 11000]]);
      expect(await stored(c)).toEqual(['a', 'c', 'x']);
    },
  );
});

describe('deletes', () => {
  it('delete the documents of an _id list, and those matching a field, counting them', async () => {
    const c = await collection();
    await c.insertMany(['1', '2', '3', '4', '5'].map((_id) => ({ _id, run: _id < '3' ? 'r1' : 'r2' })));
    expect((await c.deleteMany({ _id: { $in: ['1', '3', '404'] } })).deletedCount).toBe(2);
    expect((await c.deleteMany({ run: 'r2' })).deletedCount).toBe(2);
    expect(await stored(c)).toEqual(['2']);
  });
});
