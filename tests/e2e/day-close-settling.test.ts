/**
 * A close and the writes of its day still in flight (point 6, and
 * its review): the close waits for a write that read the day open until the
 * write has landed with its ledger record, not until its events are
 * published; when it gives up it puts the day back open, so that the branch
 * can take money again.
 */
import { DiscardPolicy } from 'nats';
import { MongoClient, type Collection } from 'mongodb';
import { eventually } from './harness';
import { awayFromMidnight, clinicToday, createBill, pay, moneyStackOfFile, type MoneyStack } from './money';

const file = moneyStackOfFile(4);
let m: MoneyStack;
beforeAll(() => {
  m = file.stack();
});

const close = (store: number, date: string) => m.t.post('/lab_bills/day_close', { store_id: store, date });
const statusOf = async (store: number, date: string) =>
  (await m.t.get(`/lab_bills/day_close?store_id=${store}&date=${date}`)).body.closing.status;

async function withOutbox<T>(use: (outbox: Collection) => Promise<T>): Promise<T> {
  const mongo = await MongoClient.connect(m.t.stack.infra.mongoUrl);
  try {
    return await use(mongo.db('clinic_billing').collection('outbox'));
  } finally {
    await mongo.close();
  }
}

it('waits for a write of the day still in flight: answers "retry" and puts the day back open', async () => {
  await awayFromMidnight();
  const store = m.freshStore();
  const today = clinicToday();
  const bill = await createBill(m, store);
  // A write of today's money that has stored its outbox entry (with the day's fence) and not landed yet.
  const inFlight = {
    _id: 'in-flight-write',
    subject: 'billing.bill.payment_recorded',
    event: {
      event_id: 'in-flight-write',
      type: 'billing.bill.payment_recorded',
      occurred_at: new Date().toISOString(),
      correlation_id: null,
      data: {},
    },
    proof: { collection: 'bills', filter: { _id: 'no-such-bill' }, exists: true },
    created_at: { $date: new Date().toISOString() },
  };
  await withOutbox((outbox) =>
    outbox.insertOne({
      _id: inFlight._id as never,
      created_at: new Date(),
      entry: JSON.stringify(inFlight),
      fences: [`day:${store}:${today}`],
    }),
  );
  try {
    const closing = close(store, today);
    await eventually(async () => ((await statusOf(store, today)) === 'closing' ? true : undefined), 2_500, 20);
    // Refused while the close waits: a replica that remembered this would refuse the day after the close gave up.
    const refused = await pay(m, bill, { amount: 1, method: 'Cash' });
    expect(refused.body.error).toBe(`Day ${today} is closed for store ${store}.`);
    const res = await closing;
    expect({ status: res.status, body: res.body }).toEqual({
      status: 409,
      body: {
        success: false,
        error: `Payments of ${today} are still being recorded for store ${store}. Please retry.`,
        code: 'DAY_STILL_RECORDING',
      },
    });
    // Not left `closing`: the branch takes money again.
    expect(await statusOf(store, today)).toBe('open');
    expect((await pay(m, bill, { amount: 1, method: 'Cash' })).status).toBe(201);
  } finally {
    await withOutbox((outbox) => outbox.deleteOne({ _id: inFlight._id as never }));
  }
  const closed = await close(store, today);
  expect(closed.body.closing).toMatchObject({ status: 'closed', cash: [{ user_id: 1, expected: 1 }] });
});

it('does not wait for the events of a payment that is stored: JetStream refusing them does not block the close', async () => {
  await awayFromMidnight();
  const store = m.freshStore();
  const today = clinicToday();
  const bill = await createBill(m, store);
  const outboxEmpty = () =>
    eventually(async () => ((await withOutbox((outbox) => outbox.countDocuments({}))) === 0 ? true : undefined));
  await outboxEmpty();
  // The events stream accepts no more messages (as while JetStream is away): billing keeps the events in its
  // outbox, their day fences with them, and retries.
  const jsm = await (await m.t.nats('provisioner')).jetstreamManager();
  const { config, state } = await jsm.streams.info('BILLING_EVENTS');
  await jsm.streams.update('BILLING_EVENTS', { ...config, max_msgs: state.messages, discard: DiscardPolicy.New });
  try {
    expect((await pay(m, bill, { amount: 300, method: 'Cash' })).status).toBe(201);
    expect(await withOutbox((outbox) => outbox.countDocuments({ fences: `day:${store}:${today}` }))).toBe(1);
    const res = await close(store, today);
    expect({ status: res.status, cash: res.body.closing?.cash }).toEqual({
      status: 201,
      cash: [
        { user_id: 1, user_name: 'Admin User', expected: 300, counted: null, difference: null, outcome: 'not counted' },
      ],
    });
  } finally {
    await jsm.streams.update('BILLING_EVENTS', { ...config });
  }
  // Once the stream takes them again, the events are published.
  await outboxEmpty();
});
