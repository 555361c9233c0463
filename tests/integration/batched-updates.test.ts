/**
 * The compare-and-set writes of concurrent changes in one update command, on
 * the embedded server:
 * - its patch 0020 writes the single-document statements of a command in one
 *   transaction, and the command does what it did with one per statement:
 *   each statement sees the writes of those before it, and a statement the
 *   server refuses leaves those before it written and none after it;
 * - BatchedUpdates sends them, and each writer learns what became of its
 *   own: matched, changed meanwhile, refused by a unique index, or too late
 *   to be sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { BatchedUpdates, isDuplicateKeyError, ServiceError, type CompareAndSet } from '@clinic/service-kit/internal';

interface Rec {
  _id: string;
  v: number;
  u?: string;
}

let dir: string;
let infra: Infrastructure;
let mongo: MongoClient;
let recs: Collection<Rec>;
const updateCommands: number[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-batched-updates-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  mongo = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000, monitorCommands: true });
  mongo.on('commandStarted', (e) => {
    if (e.commandName === 'update') updateCommands.push((e.command.updates as unknown[]).length);
  });
  recs = mongo.db('batched_test').collection<Rec>('recs');
  await recs.createIndex({ u: 1 }, { unique: true, sparse: true });
});
afterAll(async () => {
  await mongo?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** From version `from` to `to`, within a second; landed when the record is at `to`. */
const casOf = (id: string, from: number, to: number, set: Partial<Rec> = {}): CompareAndSet => ({
  filter: { _id: id, v: from },
  update: { $set: { v: to, ...set } },
  sendBy: Date.now() + 1_000,
  landed: { _id: id, v: to },
});

/** A write the server cannot apply to a record whose `u` is text. */
const incOfText = (id: string): CompareAndSet => ({ ...casOf(id, 0, 1), update: { $inc: { u: 1 } } });

/** A compare-and-set as one statement of a bulk write. */
const statementOf = (cas: CompareAndSet) => ({ updateOne: { filter: cas.filter, update: cas.update } });

async function fresh(prefix: string, count: number): Promise<{ ids: string[]; batched: BatchedUpdates }> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  await recs.insertMany(ids.map((id) => ({ _id: id, v: 0 })));
  updateCommands.length = 0;
  return { ids, batched: new BatchedUpdates(recs as unknown as Collection<Document>) };
}

const versions = async (ids: string[]) =>
  (await recs.find({ _id: { $in: ids } }).toArray())
    .sort((a, b) => ids.indexOf(a._id) - ids.indexOf(b._id))
    .map((r) => r.v);

describe("the embedded server's patch 0020", () => {
  it('applies each single-document statement of a command on the version the ones before it left', async () => {
    const { ids } = await fresh('chain', 3);
    const [a, b, c] = ids as [string, string, string];
    // The third statement matches only once the first is written; the last matches only if it is not.
    const steps = [casOf(a, 0, 1), casOf(b, 0, 1), casOf(a, 1, 2), casOf(c, 0, 1), casOf(a, 0, 9)];
    const result = await recs.bulkWrite(steps.map(statementOf));
    expect(result.matchedCount).toBe(4);
    expect(result.modifiedCount).toBe(4);
    expect(await versions(ids)).toEqual([2, 1, 1]);
  });

  it('leaves the statements before a refused one written and none after it', async () => {
    const { ids } = await fresh('refused', 3);
    // The three are written in one transaction, which the second's duplicate fails: the first is written again.
    const steps = ids.map((id, i) => casOf(id, 0, 1, { u: i < 2 ? 'one' : 'three' }));
    const refused = await recs.bulkWrite(steps.map(statementOf)).then(
      () => null,
      (err: unknown) => err,
    );
    expect(isDuplicateKeyError(refused)).toBe(true);
    expect(await versions(ids)).toEqual([1, 0, 0]);
  });

  it('writes the statements before one that fails on its own, and none after it', async () => {
    const { ids } = await fresh('failing', 3);
    await recs.updateOne({ _id: ids[1] }, { $set: { u: `text-${ids[1]}` } });
    // The second cannot apply: $inc of a string. Unpatched, the first was written; so it is with the batch.
    const steps = [
      statementOf(casOf(ids[0]!, 0, 1)),
      statementOf(incOfText(ids[1]!)),
      statementOf(casOf(ids[2]!, 0, 1)),
    ];
    await expect(recs.bulkWrite(steps)).rejects.toThrow(/\$inc|non-numeric/i);
    expect(await versions(ids)).toEqual([1, 0, 0]);
  });
});

it('sends the writes of concurrent changes in one command, and each matches', async () => {
  const { ids, batched } = await fresh('together', 20);
  const matched = await Promise.all(ids.map((id) => batched.apply(casOf(id, 0, 1))));
  expect(matched).toEqual(ids.map(() => true));
  expect(await versions(ids)).toEqual(ids.map(() => 1));
  // The first goes alone; the others, submitted while it was in flight, together.
  expect(updateCommands).toEqual([1, 19]);
});

it('tells the write whose record changed meanwhile from those that landed', async () => {
  const { ids, batched } = await fresh('stale', 4);
  const [first, ...rest] = ids;
  const writes = [casOf(first!, 0, 1), ...rest.map((id, i) => casOf(id, i === 1 ? 5 : 0, 1))];
  expect(await Promise.all(writes.map((w) => batched.apply(w)))).toEqual([true, true, false, true]);
  expect(await versions(ids)).toEqual([1, 1, 0, 1]);
  expect(updateCommands).toEqual([1, 3]);
});

it('gives the write a unique index refuses its error, and the others their own answers', async () => {
  const { ids, batched } = await fresh('unique', 4);
  const writes = ids.map((id, i) => casOf(id, 0, 1, { u: i === 1 || i === 2 ? 'same' : `own-${i}` }));
  const outcomes = await Promise.all(writes.map((w) => batched.apply(w).catch((err: unknown) => err)));
  expect(outcomes[0]).toBe(true);
  expect(outcomes[1]).toBe(true);
  expect(isDuplicateKeyError(outcomes[2])).toBe(true);
  expect(outcomes[3]).toBe(true);
  expect(await versions(ids)).toEqual([1, 1, 0, 1]);
});

it('refuses a write with too little of its window left when the command goes, and sends the others', async () => {
  const { ids, batched } = await fresh('late', 3);
  const late = { ...casOf(ids[2]!, 0, 1), sendBy: Date.now() + 20 };
  const outcomes = await Promise.all(
    [casOf(ids[0]!, 0, 1), casOf(ids[1]!, 0, 1), late].map((w) => batched.apply(w).catch((err: unknown) => err)),
  );
  expect(outcomes.slice(0, 2)).toEqual([true, true]);
  expect(outcomes[2]).toBeInstanceOf(ServiceError);
  expect((outcomes[2] as ServiceError).status).toBe(503);
  expect(await versions(ids)).toEqual([1, 1, 0]);
});

it('gives every write of a command that failed for another reason its error', async () => {
  const { ids, batched } = await fresh('other', 4);
  await recs.updateOne({ _id: ids[2] }, { $set: { u: `text-${ids[2]}` } });
  updateCommands.length = 0;
  // The first goes alone; the other three together, in a command the server refuses.
  const writes = [casOf(ids[0]!, 0, 1), casOf(ids[1]!, 0, 1), incOfText(ids[2]!), casOf(ids[3]!, 0, 1)];
  const outcomes = await Promise.all(writes.map((w) => batched.apply(w).catch((err: unknown) => err)));
  expect(outcomes[0]).toBe(true);
  for (const outcome of outcomes.slice(1)) {
    expect(outcome).toBeInstanceOf(Error);
    expect(outcome).not.toBeInstanceOf(ServiceError);
    expect(isDuplicateKeyError(outcome)).toBe(false);
  }
  expect(updateCommands).toEqual([1, 3]);
});
