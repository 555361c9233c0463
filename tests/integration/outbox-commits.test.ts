/**
 * The outbox against real servers: NATS stopped after the database write,
 * a process that died between recording and publishing, and an entry whose
 * write never happened.
 */
import { EventSubjects } from '@clinic/contracts';
import { Outbox, ServiceError } from '@clinic/service-kit/internal';
import { log, nc, db, publishedFor, waitUntil, entities, entries } from './outbox-stack';

describe('commit records (the audit trail)', () => {
  const trail = () => db.collection<{ _id: string; key: string; n: number }>('trail');
  const spec = (key: string, n: number) => ({
    subject: EventSubjects.chargeUpdated,
    data: { key },
    correlationId: 'records',
    records: [{ collection: 'trail', doc: { key, n } }],
  });

  it('stores a write’s records under its event id before record() returns, and none for a write that failed', async () => {
    const outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 60_000 });
    outbox.start();
    try {
      const eventId = await outbox.record(
        { ...spec('rec-ok', 1), collection: 'entities', key: 'rec-ok' },
        async (id) => {
          await entities().insertOne({ _id: 'rec-ok', _event_ids: [id] });
          return id;
        },
      );
      expect(await trail().findOne({ _id: eventId })).toEqual({ _id: eventId, key: 'rec-ok', n: 1 });
      // A write refused for certain (a ServiceError): its entry is discarded, its record never stored.
      await expect(
        outbox.record({ ...spec('rec-failed', 2), collection: 'entities', key: 'rec-failed' }, async () => {
          throw new ServiceError(409, 'refused', 'RECORD_BUSY');
        }),
      ).rejects.toThrow('refused');
      await waitUntil(async () => (await entries().countDocuments({})) === 0);
      expect(await trail().countDocuments({ key: 'rec-failed' })).toBe(0);
      expect(await publishedFor('rec-ok')).toEqual([eventId]);
    } finally {
      await outbox.stop();
    }
  });

  it('has the sweeper store the records of a dead process’s proven writes, exactly once, and none of the rest', async () => {
    const died = new Outbox(db, nc.jetstream(), log, { graceMs: 500 });
    const proven = (eventId: string) => ({
      collection: 'entities',
      filter: { _id: 'rec-crashed', _event_ids: eventId },
      exists: true,
    });
    // Two writes happened (their event ids are on the entity) before the process died: one before storing its
    // record, one after storing it and before publishing. A third write never happened.
    await died.prepare([{ ...spec('rec-crashed', 3), eventId: 'rec-written', proof: proven('rec-written') }]);
    await died.prepare([{ ...spec('rec-crashed', 4), eventId: 'rec-stored', proof: proven('rec-stored') }]);
    await died.prepare([{ ...spec('rec-crashed', 5), eventId: 'rec-never', proof: proven('rec-never') }]);
    await entities().insertOne({ _id: 'rec-crashed', _event_ids: ['rec-written', 'rec-stored'] });
    await trail().insertOne({ _id: 'rec-stored', key: 'rec-crashed', n: 4 });

    const sweeper = new Outbox(db, nc.jetstream(), log, { graceMs: 500, sweepIntervalMs: 100 });
    sweeper.start();
    try {
      await waitUntil(async () => (await entries().countDocuments({})) === 0);
    } finally {
      await sweeper.stop();
    }
    expect(await trail().find({ key: 'rec-crashed' }).sort({ n: 1 }).toArray()).toEqual([
      { _id: 'rec-written', key: 'rec-crashed', n: 3 },
      { _id: 'rec-stored', key: 'rec-crashed', n: 4 },
    ]);
    expect(await publishedFor('rec-crashed')).toEqual(['rec-written', 'rec-stored']);
  });

  it('has the relay store a record the request could not, before publishing', async () => {
    const outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 60_000 });
    outbox.start();
    const prepared = await outbox.prepare([
      {
        ...spec('rec-late', 5),
        eventId: 'rec-late-1',
        proof: { collection: 'entities', filter: { _id: 'rec-late' }, exists: true },
      },
    ]);
    await entities().insertOne({ _id: 'rec-late', _event_ids: ['rec-late-1'] });
    // The database refuses the record for now (a unique index it violates), so settle leaves it to the relay.
    await trail().createIndex({ n: 1 }, { unique: true, name: 'n_unique' });
    await trail().insertOne({ _id: 'blocker', key: 'other', n: 5 });
    await prepared.settle();
    expect(await trail().findOne({ _id: 'rec-late-1' })).toBeNull();
    expect(await entries().countDocuments({ _id: 'rec-late-1' })).toBe(1);
    // Once it can be stored, the relay stores it and only then publishes and deletes the entry.
    await trail().deleteOne({ _id: 'blocker' });
    try {
      await waitUntil(async () => (await entries().countDocuments({ _id: 'rec-late-1' })) === 0);
    } finally {
      await outbox.stop();
      await trail().dropIndex('n_unique');
    }
    expect(await trail().findOne({ _id: 'rec-late-1' })).toEqual({ _id: 'rec-late-1', key: 'rec-late', n: 5 });
    expect(await publishedFor('rec-late')).toEqual(['rec-late-1']);
  });
});

describe('events alongside a write, and fences', () => {
  const ledger = () => db.collection<{ _id: string; key: string; amount: number }>('ledger');
  const alongside = (key: string, eventId: string, amount: number) => ({
    subject: EventSubjects.chargeUpdated,
    data: { key },
    correlationId: 'alongside',
    eventId,
    records: [{ collection: 'ledger', doc: { key, amount } }],
  });

  it('publishes them after the write’s own event, stores their records, and holds its fences until then', async () => {
    const outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 60_000 });
    outbox.start();
    let heldDuringWrite = false;
    try {
      await outbox.record(
        {
          subject: EventSubjects.chargeCreated,
          data: { key: 'along-ok' },
          correlationId: 'alongside',
          collection: 'entities',
          key: 'along-ok',
          fences: ['day:1:2090-01-01'],
          alongside: [alongside('along-ok', 'along-ok-1', 10), alongside('along-ok', 'along-ok-2', 20)],
        },
        async (id) => {
          heldDuringWrite = await outbox.holdsFence('day:1:2090-01-01');
          // Only the write's own event goes on the entity: it proves the ones alongside it too.
          await entities().insertOne({ _id: 'along-ok', _event_ids: [id] });
        },
      );
      expect(heldDuringWrite).toBe(true);
      // Their records are stored once record() answers, like the write's own.
      expect(await ledger().find({ key: 'along-ok' }).sort({ amount: 1 }).toArray()).toEqual([
        { _id: 'along-ok-1', key: 'along-ok', amount: 10 },
        { _id: 'along-ok-2', key: 'along-ok', amount: 20 },
      ]);
      await waitUntil(async () => !(await outbox.holdsFence('day:1:2090-01-01')));
      expect((await publishedFor('along-ok')).slice(1)).toEqual(['along-ok-1', 'along-ok-2']);
      expect(await outbox.holdsFence('day:1:2090-01-02')).toBe(false);
    } finally {
      await outbox.stop();
    }
  });

  it('discards them with a write that is refused, and has the sweeper publish those of a dead process’s write', async () => {
    const outbox = new Outbox(db, nc.jetstream(), log, { graceMs: 500, sweepIntervalMs: 100 });
    outbox.start();
    try {
      await expect(
        outbox.record(
          {
            subject: EventSubjects.chargeCreated,
            data: { key: 'along-refused' },
            correlationId: 'alongside',
            collection: 'entities',
            key: 'along-refused',
            fences: ['day:1:2090-01-03'],
            alongside: [alongside('along-refused', 'along-refused-1', 30)],
          },
          async () => {
            throw new ServiceError(409, 'Day 2090-01-03 is closed for store 1.', 'DAY_CLOSED');
          },
        ),
      ).rejects.toThrow('closed');
      expect(await outbox.holdsFence('day:1:2090-01-03')).toBe(false);
      // A process that died after its write: the sweeper proves it by the write's own event id.
      const died = new Outbox(db, nc.jetstream(), log, { graceMs: 500 });
      const proof = { collection: 'entities', filter: { _id: 'along-died', _event_ids: 'along-died-0' }, exists: true };
      await died.prepare([
        {
          subject: EventSubjects.chargeCreated,
          data: { key: 'along-died' },
          correlationId: 'x',
          eventId: 'along-died-0',
          proof,
        },
        { ...alongside('along-died', 'along-died-1', 40), proof },
      ]);
      await entities().insertOne({ _id: 'along-died', _event_ids: ['along-died-0'] });
      await waitUntil(async () => (await entries().countDocuments({})) === 0);
    } finally {
      await outbox.stop();
    }
    expect(await ledger().countDocuments({ key: 'along-refused' })).toBe(0);
    expect(await publishedFor('along-refused')).toEqual([]);
    expect(await ledger().findOne({ _id: 'along-died-1' })).toEqual({
      _id: 'along-died-1',
      key: 'along-died',
      amount: 40,
    });
    expect(await publishedFor('along-died')).toEqual(['along-died-0', 'along-died-1']);
  });
});
