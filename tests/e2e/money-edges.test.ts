/**
 * Edge cases of a bill's money found in review: a retried bill
 * creation answered from the bill itself when its claim is missing; amounts
 * that round to no cent refused; the spec's PUT never refused for the number
 * of entries a bill holds; a payment that makes a bill Paid published as an
 * update of the bill too.
 */
import { MongoClient } from 'mongodb';
import { EventSubjects } from '@clinic/contracts';
import type { EventReader } from './events';
import { failureOf } from './harness';
import { createBill, ledgerOf, moneyStackOfFile, pay, refund, type MoneyStack } from './money';

const file = moneyStackOfFile(8, { withEvents: true });
let m: MoneyStack;
let events: EventReader;
beforeAll(() => {
  m = file.stack();
  events = file.events();
});

async function inBilling<T>(use: (db: ReturnType<MongoClient['db']>) => Promise<T>): Promise<T> {
  const mongo = await MongoClient.connect(m.t.stack.infra.mongoUrl);
  try {
    return await use(mongo.db('clinic_billing'));
  } finally {
    await mongo.close();
  }
}

const billBody = (store: number, bill_date: string, overrides: Record<string, unknown> = {}) => ({
  patient_name: 'Nimal Fernando',
  patient_contact: '0771234567',
  bill_date,
  payment_method: 'Cash',
  payment_status: 'Paid',
  store_id: store,
  items: [{ charge_id: m.charge(store), charge_name: 'CBC', unit_price: 850, qty: 1 }],
  ...overrides,
});

it('answers a retried creation with the bill its first attempt made, its claim missing and its day closed since', async () => {
  const store = m.freshStore();
  const date = '2001-06-01';
  const headers = { 'idempotency-key': 'create-once-1' };
  const first = await m.t.post('/lab_bills', billBody(store, date), { headers });
  expect(first.status).toBe(201);
  // The claim was never saved (its save failed, or the process died between the insert and the save).
  expect(
    await inBilling((db) => db.collection('idempotency_keys').deleteOne({ _id: '1:create-once-1' as never })),
  ).toMatchObject({ deletedCount: 1 });
  expect((await m.t.post('/lab_bills/day_close', { store_id: store, date })).status).toBe(201);

  const retry = await m.t.post('/lab_bills', billBody(store, date), { headers });
  expect({ status: retry.status, body: retry.body }).toEqual({ status: 201, body: first.body });
  const other = await m.t.post('/lab_bills', billBody(store, date, { notes: 'another' }), { headers });
  expect({ status: other.status, body: other.body }).toEqual({
    status: 422,
    body: {
      success: false,
      error: 'This Idempotency-Key was already used for a different request.',
      code: 'IDEMPOTENCY_KEY_REUSED',
    },
  });
  expect((await m.t.get(`/lab_bills?store_id=${store}&date=${date}`)).body.total).toBe(1);
});

it('refuses a payment or refund that rounds to no cent, and rounds the others half-up as bills do', async () => {
  const store = m.freshStore();
  const pending = await createBill(m, store);
  const paid = await createBill(m, store, { payment_status: 'Paid' });
  const belowOneCent = failureOf('amount must be at least 0.01.');
  const refused = [
    await pay(m, pending, { amount: 0.004, method: 'Cash' }),
    await pay(m, paid, { amount: 0.004, method: 'Card' }),
    await refund(m, paid, { amount: 0.0049, method: 'Cash', reason: 'r' }),
  ];
  for (const res of refused)
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: belowOneCent });
  expect((await ledgerOf(m, pending)).ledger).toEqual([]);
  expect((await ledgerOf(m, paid)).ledger).toHaveLength(1);
  const rounded = await pay(m, pending, { amount: 0.005, method: 'Cash' });
  expect({ status: rounded.status, amount: rounded.body.payment?.amount }).toEqual({ status: 201, amount: 0.01 });
  expect((await ledgerOf(m, pending)).due_amount).toBe(849.99);
});

it('takes the spec’s PUT of payment_status however often it is sent; the cap of entries is the new routes’ only', async () => {
  const store = m.freshStore();
  const id = await createBill(m, store);
  for (let round = 0; round < 51; round++) {
    for (const payment_status of ['Paid', 'Pending']) {
      const res = await m.t.put(`/lab_bills/${id}`, { payment_status });
      expect({ round, payment_status, status: res.status }).toEqual({ round, payment_status, status: 200 });
    }
  }
  expect((await ledgerOf(m, id)).ledger).toHaveLength(102);
  const capped = await pay(m, id, { amount: 1, method: 'Cash' });
  expect({ status: capped.status, body: capped.body }).toEqual({
    status: 409,
    body: { success: false, error: 'A bill holds at most 100 payments and refunds.', code: 'LEDGER_FULL' },
  });
  expect((await m.t.put(`/lab_bills/${id}`, { payment_status: 'Paid', payment_method: 'Card' })).status).toBe(200);
  expect(await ledgerOf(m, id)).toMatchObject({ paid_amount: 850, due_amount: 0, payment_status: 'Paid' });
  expect((await ledgerOf(m, id)).ledger).toHaveLength(103);
});

it('publishes billing.bill.updated with the bill as after when a payment changes its payment_status', async () => {
  const store = m.freshStore();
  const id = await createBill(m, store);
  const ofBill = (subject: string) => (e: { subject: string; event: { data: any } }) =>
    e.subject === subject && (e.event.data.bill.id ?? e.event.data.bill.bill_id) === id;
  expect((await pay(m, id, { amount: 500, method: 'Cash' })).status).toBe(201);
  expect((await pay(m, id, { amount: 350, method: 'Card' })).status).toBe(201);
  await events.waitFor(ofBill(EventSubjects.billPaymentRecorded), 2);
  const updated = await events.waitFor(ofBill(EventSubjects.billUpdated));
  // Only the payment that made it Paid; a partial one changes no field that bill.updated carries but the money.
  expect(updated).toHaveLength(1);
  expect(updated[0]!.event.data.bill).toMatchObject({
    id,
    payment_status: 'Paid',
    paid_amount: 850,
    due_amount: 0,
    items: [expect.objectContaining({ charge_name: 'CBC' })],
  });
  // A refund leaves payment_status as it is: no update.
  expect((await refund(m, id, { amount: 100, method: 'Cash', reason: 'r' })).status).toBe(201);
  await events.waitFor(ofBill(EventSubjects.billRefunded));
  expect(events.received.filter(ofBill(EventSubjects.billUpdated))).toHaveLength(1);
});
