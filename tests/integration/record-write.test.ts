/**
 * Changes of one record from two "replicas" (each its own RecordWriter, so its
 * in-process queue does not help) against the real database server: no change
 * is lost, each checks and describes the version it writes over, and a record
 * cancelled meanwhile is never written back.
 */
import type { NatsConnection } from 'nats';
import type { Collection, Db } from 'mongodb';
import { EventSubjects, REQUEST_MESSAGES } from '@clinic/contracts';
import {
  createLogger,
  IdAllocator,
  Outbox,
  RecordWriter,
  ServiceError,
  type RecordWrite,
  type StoredRecord,
} from '@clinic/service-kit/internal';
import { startLocalParts, stopLocalParts, type LocalParts } from './local-parts';

interface Counter extends StoredRecord {
  n: number;
  live: boolean;
}

const log = createLogger('record-write-test', 'silent');
let parts: LocalParts;
let nc: NatsConnection;
let db: Db;
let counters: Collection<Counter>;
let outbox: Outbox;

beforeAll(async () => {
  parts = await startLocalParts('record-write', 'catalogue', 'record_write_test', log);
  ({ nc, db } = parts);
  counters = db.collection<Counter>('counters');
  outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 60_000 });
  outbox.start();
});
afterAll(async () => {
  await outbox?.stop();
  await stopLocalParts(parts);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one replica's writer wrote: each landed change's record before and after. */
function replica(landed: Array<{ before?: Counter; after: Counter }>): RecordWriter<Counter> {
  return new RecordWriter<Counter>({
    collection: counters,
    recordKind: 'counter',
    counter: 'counters',
    ids: new IdAllocator(db),
    outbox,
    find: (id) => counters.findOne({ id, live: true }),
    stillWritable: { live: true },
    notFound: 'BILL_NOT_FOUND',
    written: async (after, before) => {
      landed.push({ after, before });
    },
  });
}

const increment = (existing: Counter): RecordWrite<Counter> => ({
  set: { n: existing.n + 1 },
  event: (after) => ({ subject: EventSubjects.chargeUpdated, data: { n: after.n }, correlationId: 'inc' }),
});

async function counter(id: number): Promise<void> {
  await counters.insertOne({ _id: `counter:${id}`, id, n: 0, live: true, _event_ids: [] });
}

it('loses no change when two replicas change one record at once, and each writes over the version it read', async () => {
  await counter(1);
  const landed: Array<{ before?: Counter; after: Counter }> = [];
  const replicas = [replica(landed), replica(landed)];
  await Promise.all(Array.from({ length: 30 }, (_, i) => replicas[i % 2]!.change(1, increment)));
  expect((await counters.findOne({ id: 1 }))!.n).toBe(30);
  // Every "after" is a different version, each written over the one before it.
  expect(landed.map((l) => l.after.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  for (const { before, after } of landed) expect(after.n).toBe(before!.n + 1);
  // The events of the writes that matched nothing were discarded, not left for the sweeper; the rest published.
  const deadline = Date.now() + 10_000;
  while ((await db.collection('outbox').countDocuments({})) > 0 && Date.now() < deadline) await sleep(100);
  expect(await db.collection('outbox').countDocuments({})).toBe(0);
});

it('decides again on the new version when another replica changed the record after the read', async () => {
  await counter(2);
  const [first, second] = [replica([]), replica([])];
  const seen: number[] = [];
  let secondDone!: Promise<unknown>;
  await first.change(2, async (existing) => {
    seen.push(existing.n);
    // The other replica's change lands between this read and this write, once.
    secondDone ??= second.change(2, increment);
    await secondDone;
    return increment(existing);
  });
  expect(seen).toEqual([0, 1]);
  expect((await counters.findOne({ id: 2 }))!.n).toBe(2);
});

it('never writes back a record another replica cancelled meanwhile: 404', async () => {
  await counter(3);
  const [first, second] = [replica([]), replica([])];
  const cancel = (): RecordWrite<Counter> => ({
    set: { live: false },
    event: () => ({ subject: EventSubjects.chargeDeleted, data: {}, correlationId: 'cancel' }),
  });
  const outcome = await first
    .change(3, async (existing) => {
      await second.change(3, cancel);
      return increment(existing);
    })
    .catch((err: unknown) => err);
  expect(outcome).toMatchObject({ status: 404, message: 'Bill not found.', code: 'BILL_NOT_FOUND' });
  expect(await counters.findOne({ id: 3 })).toMatchObject({ n: 0, live: false });
});

it('lets no write land late over a change made after it was sent (the partition anomaly of 2026-11-25)', async () => {
  // A write whose client gave up (the driver's socket timeout) may still be carried out by the server later,
  // after the next change of the record landed. That write's filter names the event ids it read: it matches
  // nothing, so the later change keeps its fields and its event id (whose history entry is stored).
  await counter(7);
  const read = (await counters.findOne({ id: 7 }))!;
  await replica([]).change(7, increment);
  const now = (await counters.findOne({ id: 7 }))!;
  const late = await counters.updateOne(
    { _id: read._id, _event_ids: read._event_ids },
    { $set: { n: read.n + 100, _event_ids: [...read._event_ids, 'late-event'] } },
  );
  expect(late.matchedCount).toBe(0);
  expect(await counters.findOne({ id: 7 })).toMatchObject({ n: 1, _event_ids: now._event_ids });
  expect(now._event_ids).toHaveLength(1);
});

it('answers 409 when the record keeps changing under every attempt for 3 s', async () => {
  await counter(4);
  const [first, second] = [replica([]), replica([])];
  let attempts = 0;
  const outcome = await first
    .change(4, async (existing) => {
      attempts++;
      await second.change(4, increment);
      return increment(existing);
    })
    .catch((err: unknown) => err);
  expect(outcome).toMatchObject({ status: 409, message: REQUEST_MESSAGES.recordBusy, code: 'RECORD_BUSY' });
  expect(attempts).toBeGreaterThan(1);
  // The other replica's changes, one per attempt, none of this one.
  expect((await counters.findOne({ id: 4 }))!.n).toBe(attempts);
}, 10_000);

it('queues one replica’s own changes of a record, so that they never start again', async () => {
  await counter(5);
  let decisions = 0;
  const writer = replica([]);
  await Promise.all(
    Array.from({ length: 10 }, () =>
      writer.change(5, async (existing) => {
        decisions++;
        await sleep(2);
        return increment(existing);
      }),
    ),
  );
  expect(decisions).toBe(10);
  expect((await counters.findOne({ id: 5 }))!.n).toBe(10);
});

it('runs the guard once the event is recorded, right before the write; a refusal writes nothing and drops the event', async () => {
  await counter(6);
  const writer = replica([]);
  let outboxHeldEvent = false;
  const guarded =
    (refuse: boolean) =>
    (existing: Counter): RecordWrite<Counter> => ({
      ...increment(existing),
      guard: async () => {
        outboxHeldEvent = (await db.collection('outbox').countDocuments({ fences: 'counter-6' })) > 0;
        if (refuse) throw new ServiceError(409, 'Closed.', 'DAY_CLOSED');
      },
    });
  const fenced = (write: RecordWrite<Counter>): RecordWrite<Counter> =>
    'set' in write
      ? { ...write, event: async (after) => ({ ...(await write.event(after)), fences: ['counter-6'] }) }
      : write;
  await expect(writer.change(6, (existing) => fenced(guarded(true)(existing)))).rejects.toThrow('Closed.');
  expect(outboxHeldEvent).toBe(true);
  expect((await counters.findOne({ id: 6 }))!.n).toBe(0);
  expect(await db.collection('outbox').countDocuments({ fences: 'counter-6' })).toBe(0);
  await writer.change(6, (existing) => fenced(guarded(false)(existing)));
  expect((await counters.findOne({ id: 6 }))!.n).toBe(1);
});

it('stores a record under its own key once: a second replica meets the duplicate, writes nothing and may change it', async () => {
  const writers = [replica([]), replica([])];
  const fresh: Omit<Counter, '_event_ids'> = { _id: 'counter:9', id: 9, n: 1, live: true };
  const event = { subject: EventSubjects.chargeCreated, data: { n: 1 }, correlationId: 'insert-as' };
  const outcomes = await Promise.allSettled(writers.map((writer) => writer.insertAs(fresh, { event })));
  expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
  const stored = (await counters.findOne({ id: 9 }))!;
  expect(stored._event_ids).toHaveLength(1);
  // The loser's event was dropped with its write; it may change the record the winner stored.
  await writers[1]!.change(9, increment);
  expect((await counters.findOne({ id: 9 }))!.n).toBe(2);

  // A guard that refuses stores nothing.
  const refused = writers[0]!.insertAs(
    { ...fresh, _id: 'counter:10', id: 10 },
    {
      event,
      guard: async () => {
        throw new ServiceError(409, 'Closed.', 'DAY_CLOSED');
      },
    },
  );
  await expect(refused).rejects.toThrow('Closed.');
  expect(await counters.findOne({ id: 10 })).toBeNull();
});

it('marks the record stale again when nothing changes: a replay may answer for a write whose first marking failed', async () => {
  await counter(11);
  const landed: Array<{ before?: Counter; after: Counter }> = [];
  const writer = replica(landed);
  await writer.change(11, increment);
  expect(await writer.change(11, () => null)).toBe('unchanged');
  expect(landed.map(({ before, after }) => [before?.n, after.n])).toEqual([
    [0, 1],
    [1, 1],
  ]);
});
