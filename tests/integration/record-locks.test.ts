/**
 * Record locks against the real database server: two "replicas" (each its own
 * RecordLocks, so their in-process queues do not help) never hold one record
 * at once, a lock left by a holder that died is taken over when its lease has
 * run out, and a lock held too long answers 409 instead of waiting forever.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { createLogger, RECORD_BUSY_MESSAGE, RecordLocks, ServiceError } from '@clinic/service-kit/internal';

const log = createLogger('locks-test', 'silent');
let dir: string;
let infra: Infrastructure;
let mongo: MongoClient;
let db: Db;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-locks-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  mongo = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000 });
  db = mongo.db('locks_test');
});
afterAll(async () => {
  await mongo?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('lets one holder at a time change a record, across replicas', async () => {
  const replicas = [new RecordLocks(db, log), new RecordLocks(db, log)];
  let holders = 0;
  let mostAtOnce = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      replicas[i % 2]!.run('bill', 1, async () => {
        holders++;
        mostAtOnce = Math.max(mostAtOnce, holders);
        await sleep(5);
        order.push(i);
        holders--;
      }),
    ),
  );
  expect(mostAtOnce).toBe(1);
  expect(order.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  expect(await db.collection('record_locks').countDocuments({})).toBe(0); // all released
});

it('does not hold other records back', async () => {
  const locks = new RecordLocks(db, log);
  let release!: () => void;
  const held = locks.run('bill', 2, () => new Promise<void>((resolve) => (release = resolve)));
  await sleep(50);
  await expect(locks.run('bill', 3, async () => 'free')).resolves.toBe('free');
  release();
  await held;
});

it('takes over a lock whose holder died once its lease has run out', async () => {
  await db
    .collection<{ _id: string }>('record_locks')
    .insertOne({ _id: 'bill:4', token: 'dead-holder', expires_at: new Date(Date.now() - 1) } as never);
  await expect(new RecordLocks(db, log).run('bill', 4, async () => 'done')).resolves.toBe('done');
  expect(await db.collection('record_locks').countDocuments({ _id: 'bill:4' } as never)).toBe(0);
});

it('answers 409 when the record stays locked past the wait, and runs nothing', async () => {
  await db
    .collection<{ _id: string }>('record_locks')
    .insertOne({ _id: 'bill:5', token: 'busy-holder', expires_at: new Date(Date.now() + 60_000) } as never);
  let ran = false;
  const outcome = await new RecordLocks(db, log, { waitMs: 300 })
    .run('bill', 5, async () => {
      ran = true;
    })
    .catch((err: unknown) => err);
  expect(outcome).toBeInstanceOf(ServiceError);
  expect(outcome).toMatchObject({ status: 409, message: RECORD_BUSY_MESSAGE });
  expect(ran).toBe(false);
  // The other holder's lock is untouched.
  expect(await db.collection('record_locks').findOne({ _id: 'bill:5' } as never)).toMatchObject({
    token: 'busy-holder',
  });
});

it('releases the lock when the work fails', async () => {
  const locks = new RecordLocks(db, log);
  await expect(locks.run('bill', 6, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  await expect(locks.run('bill', 6, async () => 'again')).resolves.toBe('again');
});

it('lets the work release the lock before it ends, and settles only once the release has landed', async () => {
  const [first, second] = [new RecordLocks(db, log), new RecordLocks(db, log)];
  let finish!: () => void;
  let releasedEarly!: () => void;
  const early = new Promise<void>((resolve) => (releasedEarly = resolve));
  const held = first.run('bill', 7, async (release) => {
    release();
    release(); // a second call changes nothing
    releasedEarly();
    await new Promise<void>((resolve) => (finish = resolve));
    return 'first';
  });
  await early;
  // Another replica takes the record while the first work is still running.
  await expect(second.run('bill', 7, async () => 'second')).resolves.toBe('second');
  finish();
  await expect(held).resolves.toBe('first');
  expect(await db.collection('record_locks').countDocuments({ _id: 'bill:7' } as never)).toBe(0);
});
