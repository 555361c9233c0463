/**
 * BatchedFinds on the embedded server: the reads of single records that
 * callers ask for while a query is in flight go together in the next one,
 * and each caller gets what a query of its own would have given it; a find
 * that waited over a second behind a query the server did not answer fails
 * unsent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, MongoServerError, type Collection } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { BatchedFinds, FindQueuedTooLong } from '@clinic/service-kit/internal';

interface Rec {
  _id: string;
  v: number;
  live: boolean;
}

let dir: string;
let infra: Infrastructure;
let mongo: MongoClient;
let recs: Collection<Rec>;
/** The keys each find command asked for. */
const findCommands: string[][] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-batched-finds-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  mongo = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000, monitorCommands: true });
  mongo.on('commandStarted', (e) => {
    if (e.commandName === 'find') findCommands.push((e.command.filter as { _id: { $in: string[] } })._id.$in);
  });
  recs = mongo.db('batched_test').collection<Rec>('recs');
  await recs.insertMany([
    { _id: 'a', v: 1, live: true },
    { _id: 'b', v: 2, live: true },
    { _id: 'c', v: 3, live: true },
    { _id: 'gone', v: 4, live: false },
  ]);
});
afterAll(async () => {
  await mongo?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  findCommands.length = 0;
});

it('sends the first find at once and those asked meanwhile in one query, each its own record', async () => {
  const finds = new BatchedFinds(recs, { live: true });
  const found = await Promise.all(['a', 'b', 'c'].map((key) => finds.find(key)));
  expect(found).toEqual([
    { _id: 'a', v: 1, live: true },
    { _id: 'b', v: 2, live: true },
    { _id: 'c', v: 3, live: true },
  ]);
  expect(findCommands).toEqual([['a'], ['b', 'c']]);
});

it('reads null for a record the filter leaves out and for a missing one', async () => {
  const finds = new BatchedFinds(recs, { live: true });
  const found = await Promise.all(['a', 'gone', 'none'].map((key) => finds.find(key)));
  expect(found).toEqual([{ _id: 'a', v: 1, live: true }, null, null]);
  expect(findCommands).toEqual([['a'], ['gone', 'none']]);
});

it('asks a filter given as a function once per query, when the query is sent', async () => {
  let live = true;
  let asked = 0;
  const finds = new BatchedFinds(recs, async () => {
    asked++;
    return { live };
  });
  const first = finds.find('a');
  // Changed before the next query is sent: the finds asked meanwhile see it.
  const later = ['b', 'gone'].map((key) => finds.find(key));
  live = false;
  expect(await first).toEqual({ _id: 'a', v: 1, live: true });
  expect(await Promise.all(later)).toEqual([null, { _id: 'gone', v: 4, live: false }]);
  expect(asked).toBe(2);
  expect(findCommands).toEqual([['a'], ['b', 'gone']]);
});

it('gives two callers of one record a copy each', async () => {
  const finds = new BatchedFinds(recs);
  const [, first, second] = await Promise.all(['c', 'b', 'b'].map((key) => finds.find(key)));
  expect(first).toEqual({ _id: 'b', v: 2, live: true });
  expect(second).toEqual(first);
  first!.v = 20;
  expect(second!.v).toBe(2);
});

it('rejects every caller of a query the server refuses', async () => {
  const refused = new BatchedFinds(recs, { v: { $bogus: 1 } } as never);
  const outcomes = await Promise.all(['a', 'b', 'c'].map((key) => refused.find(key).catch((err: unknown) => err)));
  for (const outcome of outcomes) expect(outcome).toBeInstanceOf(MongoServerError);
  expect(findCommands).toEqual([['a'], ['b', 'c']]);
});

it('fails unsent the finds that waited over a second behind a query the server did not answer', async () => {
  const finds = new BatchedFinds(recs);
  let first: Promise<Rec | null>;
  let queued: Array<Promise<unknown>>;
  try {
    await infra.db!.pause();
    first = finds.find('a');
    await new Promise((resolve) => setTimeout(resolve, 50));
    queued = ['b', 'c'].map((key) => finds.find(key).catch((err: unknown) => err));
    await new Promise((resolve) => setTimeout(resolve, 1_200));
  } finally {
    infra.db!.signal('SIGCONT');
  }
  expect(await first).toEqual({ _id: 'a', v: 1, live: true });
  for (const outcome of await Promise.all(queued)) expect(outcome).toBeInstanceOf(FindQueuedTooLong);
  expect(await finds.find('b')).toEqual({ _id: 'b', v: 2, live: true });
  expect(findCommands).toEqual([['a'], ['b']]);
});
