/**
 * The embedded database server's patch 0020: the single-document statements
 * of one update command are written in one transaction, and the command does
 * what it did with one transaction per statement. Each statement sees the
 * writes of those before it, and a statement the server refuses leaves those
 * before it written and none after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Collection } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { isDuplicateKeyError } from '@clinic/service-kit/storage';

interface Doc {
  _id: string;
  v: number;
  u?: string;
}

let dir: string;
let infra: Infrastructure;
let mongo: MongoClient;
let docs: Collection<Doc>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-ferretdb-batch-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  mongo = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000 });
  docs = mongo.db('batch_test').collection<Doc>('docs');
  await docs.createIndex({ u: 1 }, { unique: true, sparse: true });
});
afterAll(async () => {
  await mongo?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A compare-and-set of one document: from version `from` to `to`. */
const step = (id: string, from: number, to: number, set: Partial<Doc> = {}) => ({
  updateOne: { filter: { _id: id, v: from }, update: { $set: { v: to, ...set } } },
});

const versions = async (ids: string[]) =>
  Object.fromEntries((await docs.find({ _id: { $in: ids } }).toArray()).map((d) => [d._id, d.v]));

it('an update command of single-document statements applies each on the version the ones before it left (patch 0020)', async () => {
  await docs.insertMany(['a', 'b', 'c'].map((id) => ({ _id: id, v: 0 })));
  // The third statement matches only once the first is written; the last matches only if it is not.
  const result = await docs.bulkWrite([
    step('a', 0, 1),
    step('b', 0, 1),
    step('a', 1, 2),
    step('c', 0, 1),
    step('a', 0, 9),
  ]);
  expect(result.matchedCount).toBe(4);
  expect(result.modifiedCount).toBe(4);
  expect(await versions(['a', 'b', 'c'])).toEqual({ a: 2, b: 1, c: 1 });
});

it('a statement the server refuses leaves the ones before it written and none after it (patch 0020)', async () => {
  await docs.insertMany(['x', 'y', 'z'].map((id) => ({ _id: id, v: 0 })));
  // The three are written in one transaction, which y's duplicate fails: x is written again on its own.
  const refused = await docs
    .bulkWrite([step('x', 0, 1, { u: 'one' }), step('y', 0, 1, { u: 'one' }), step('z', 0, 1, { u: 'three' })])
    .then(
      () => null,
      (err: unknown) => err,
    );
  expect(isDuplicateKeyError(refused)).toBe(true);
  expect(await versions(['x', 'y', 'z'])).toEqual({ x: 1, y: 0, z: 0 });
  expect(await docs.countDocuments({ u: { $exists: true } })).toBe(1);
});
