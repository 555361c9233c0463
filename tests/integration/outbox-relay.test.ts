/**
 * The outbox against real servers: NATS stopped after the database write,
 * a process that died between recording and publishing, and an entry whose
 * write never happened.
 */
import { EventSubjects } from '@clinic/contracts';
import { Outbox, withEventId, type OutboxEntry } from '@clinic/service-kit/internal';
import { log, infra, nc, db, publishedFor, waitUntil, entities, entries } from './outbox-stack';

it('publishes an event recorded while NATS was down once NATS is back, exactly once', async () => {
  const outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 60_000 });
  outbox.start();
  await infra.nats!.stop();
  const eventId = await outbox.record(
    {
      subject: EventSubjects.chargeCreated,
      data: { key: 'blip' },
      collection: 'entities',
      key: 'blip',
      correlationId: 'c1',
    },
    async (id) => {
      await entities().insertOne({ _id: 'blip', _event_ids: [id] });
      return id;
    },
  );
  // The write is done and the event waits in the outbox while NATS is away.
  expect(await entities().findOne({ _id: 'blip' })).not.toBeNull();
  // Stored as one text beside its creation time (see storedEntry).
  expect(Object.keys((await entries().findOne({ _id: eventId }))!)).toEqual(['_id', 'created_at', 'entry']);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await infra.startNats();
  await waitUntil(async () => (await entries().countDocuments({ _id: eventId })) === 0);
  expect(await publishedFor('blip')).toEqual([eventId]);
  await outbox.stop();
});

it('recovers the entry of a process that died after its write, and drops one whose write never happened', async () => {
  const old = new Date(Date.now() - 60_000);
  const entry = (id: string, key: string): OutboxEntry => ({
    _id: id,
    subject: EventSubjects.chargeUpdated,
    event: {
      event_id: id,
      type: EventSubjects.chargeUpdated,
      occurred_at: old.toISOString(),
      correlation_id: null,
      data: { key },
    },
    proof: { collection: 'entities', filter: { _id: key, _event_ids: id }, exists: true },
    created_at: old,
  });
  // Written by a process that died before handing the events over; stored whole, as versions before the
  // one-text entries stored them (the packed ones are recovered in the commit records' tests).
  await entities().insertOne({ _id: 'crashed', _event_ids: ['done-1'] });
  await entities().updateOne({ _id: 'crashed' }, { $set: { _event_ids: withEventId(['done-1'], 'done-2') } });
  await entries().insertMany([
    entry('done-1', 'crashed'),
    entry('done-2', 'crashed'),
    entry('never-written', 'crashed'),
  ]);

  const outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 1_000, sweepIntervalMs: 200 });
  outbox.start();
  await waitUntil(async () => (await entries().countDocuments({})) === 0);
  await outbox.stop();
  expect(await publishedFor('crashed')).toEqual(['done-1', 'done-2']);
});

it('leaves young entries alone: their write may still be in progress elsewhere', async () => {
  await entries().insertOne({
    _id: 'young',
    subject: EventSubjects.chargeDeleted,
    event: {
      event_id: 'young',
      type: EventSubjects.chargeDeleted,
      occurred_at: new Date().toISOString(),
      correlation_id: null,
      data: { key: 'young' },
    },
    proof: { collection: 'entities', filter: { _id: 'young', _event_ids: 'young' }, exists: true },
    created_at: new Date(),
  });
  const outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 30_000, sweepIntervalMs: 100 });
  outbox.start();
  await new Promise((resolve) => setTimeout(resolve, 700));
  await outbox.stop();
  expect(await entries().countDocuments({ _id: 'young' })).toBe(1);
  await entries().deleteOne({ _id: 'young' });
});

it('publishes a batch only once its commit is proven, and drops it otherwise', async () => {
  const runs = db.collection<{ _id: string; status: string }>('runs');
  const commitProof = (run: string) => ({
    collection: 'runs',
    filter: { _id: run, status: 'completed' },
    exists: true,
  });
  const spec = (key: string) => ({ subject: EventSubjects.chargeCreated, data: { key }, correlationId: 'batch' });

  const outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 500, sweepIntervalMs: 100 });
  outbox.start();
  // Committed and released: published.
  await runs.insertOne({ _id: 'run-ok', status: 'running' });
  const ok = await outbox.prepare(
    [spec('batch-ok'), spec('batch-ok')].map((e) => ({ ...e, proof: commitProof('run-ok') })),
  );
  await runs.updateOne({ _id: 'run-ok' }, { $set: { status: 'completed' } });
  ok.release();
  // Recorded by a process that died before its commit: dropped by the sweeper.
  await runs.insertOne({ _id: 'run-died', status: 'running' });
  const died = new Outbox(db, nc.jetstream(), log, { graceMs: 500 });
  await died.prepare([{ ...spec('batch-died'), proof: commitProof('run-died') }]);
  // Committed, but the process died before releasing: published by the sweeper.
  await runs.insertOne({ _id: 'run-late', status: 'completed' });
  await died.prepare([{ ...spec('batch-late'), proof: commitProof('run-late') }]);

  await waitUntil(async () => (await entries().countDocuments({})) === 0);
  await outbox.stop();
  expect(await publishedFor('batch-ok')).toHaveLength(2);
  expect(await publishedFor('batch-late')).toHaveLength(1);
  expect(await publishedFor('batch-died')).toEqual([]);
});

it('lets JetStream drop a second publication of the same event', async () => {
  const js = nc.jetstream();
  const first = await js.publish(
    EventSubjects.chargeCreated,
    JSON.stringify({ event_id: 'dup', data: { key: 'dup' } }),
    { msgID: 'dup' },
  );
  const second = await js.publish(
    EventSubjects.chargeCreated,
    JSON.stringify({ event_id: 'dup', data: { key: 'dup' } }),
    { msgID: 'dup' },
  );
  expect(second.duplicate).toBe(true);
  expect(second.seq).toBe(first.seq);
  expect(await publishedFor('dup')).toEqual(['dup']);
});
