/** Bills through the gateway (setup in billing-stack.ts): bill numbers under concurrency, and Idempotency-Key. */
import { MongoClient } from 'mongodb';
import { answerOf, failureOf } from './harness';
import { t, freshDate, bill } from './billing-stack';

/** How many bills the list shows for branch 1 on `date`. */
const billsOn = async (date: string) =>
  (await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: 1, date } } }))).body.total as number;

describe('bill numbers under concurrency', () => {
  it('gives 50 concurrent creates for one date the numbers 0001..0050, every time', async () => {
    for (let round = 0; round < 3; round++) {
      const date = freshDate();
      const results = await Promise.all(
        Array.from({ length: 50 }, () => answerOf(t.api().POST('/lab_bills', { body: bill({ bill_date: date }) }))),
      );
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
      const numbers = results.map((r) => r.body.bill_number as string).sort();
      const expected = Array.from(
        { length: 50 },
        (_, i) => `LB-${date.replaceAll('-', '')}-${String(i + 1).padStart(4, '0')}`,
      );
      expect(numbers).toEqual(expected);
      // Read back: the stored bills carry exactly these numbers.
      const listed = await answerOf(
        t.api().GET('/lab_bills', { params: { query: { store_id: 1, date: date, per_page: 100 } } }),
      );
      expect(listed.body.total).toBe(50);
      expect(listed.body.bills.map((b: any) => b.bill_number).sort()).toEqual(expected);
    }
  });

  it('answers 409 "Bill number conflict" only once its retries are used up, storing nothing', async () => {
    // Another writer (not a billing replica, so invisible to the highest-number lookup) holds the
    // first 40 numbers of the date: every number billing tries collides, up to its retry limit.
    const date = '2099-12-31';
    const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
    try {
      await mongo
        .db('clinic_billing')
        .collection('bills')
        .insertMany(
          Array.from({ length: 40 }, (_, i) => ({
            _id: `foreign-${i}`,
            bill_number: `LB-20991231-${String(i + 1).padStart(4, '0')}`,
            bill_date: 'elsewhere',
          })) as never[],
        );
    } finally {
      await mongo.close();
    }
    const res = await answerOf(t.api().POST('/lab_bills', { body: bill({ bill_date: date }) }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual(failureOf('Bill number conflict. Please retry.'));
    expect(await billsOn(date)).toBe(0);
  });
});

describe('Idempotency-Key', () => {
  it('returns the first bill again for a repeated create, and creates nothing more', async () => {
    const date = freshDate();
    const headers = { 'idempotency-key': `retry-${date}` };
    const first = await answerOf(t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date }) }));
    const again = await answerOf(t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date }) }));
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await billsOn(date)).toBe(1);
  });

  it('creates one bill when the same key races', async () => {
    const date = freshDate();
    const headers = { 'idempotency-key': `race-${date}` };
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        answerOf(t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date }) })),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.bill_id)).size).toBe(1);
    expect(await billsOn(date)).toBe(1);
  });

  it('refuses a key reused for a different bill, and keeps keys of different callers apart', async () => {
    const date = freshDate();
    const headers = { 'idempotency-key': `reuse-${date}` };
    await answerOf(t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date }) }));
    const different = await answerOf(
      t.api({ headers }).POST('/lab_bills', { body: bill({ bill_date: date, patient_name: 'Someone Else' }) }),
    );
    expect(different.status).toBe(422);
    expect(different.body).toEqual(failureOf('This Idempotency-Key was already used for a different request.'));
    const otherCaller = await answerOf(
      t.api({ headers, sub: 99 }).POST('/lab_bills', { body: bill({ bill_date: date }) }),
    );
    expect(otherCaller.status).toBe(201);
    expect(await billsOn(date)).toBe(2);
    const bad = await answerOf(
      t.api({ headers: { 'idempotency-key': 'x'.repeat(101) } }).POST('/lab_bills', { body: bill() }),
    );
    expect(bad.status).toBe(400);
  });
});
