/**
 * Bill numbers with two billing replicas sharing the load through their queue
 * group: still 0001..0050 for 50 concurrent creates, no gap, no duplicate;
 * and a bulk import of bills of the same dates between them.
 */
import { readFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import {
  ClinicClock,
  createLogger,
  IdAllocator,
  ScopeVersions,
  Outbox,
  VersionedCache,
} from '@clinic/service-kit/internal';
import { computeTotals, parseNewBill } from '../../services/billing/src/domain/rules';
import { BillStorage } from '../../services/billing/src/storage';
import { BILL_PAYLOADS } from '../../services/billing/src/events/bill-events';
import { startTestStack, TEST_TZ, type TestStack } from './harness';
import { seedMainWithCbc } from './fixtures';

let t: TestStack;
let chargeId: number;

beforeAll(async () => {
  // What these tests assert is the numbering, not the speed (npm run bench measures that): two replicas that
  // collide on the same dates under a loaded machine can take longer than the gateway's default 5 s, and a 504
  // would fail the test without saying anything about the numbers.
  t = await startTestStack({ replicas: { billing: 2 }, env: { REQUEST_TIMEOUT_MS: '30000' } });
  chargeId = await seedMainWithCbc(t);
});
afterAll(async () => {
  await t?.stop();
});

const bill = (bill_date: string) => ({
  patient_name: 'P',
  patient_contact: 'C',
  bill_date,
  payment_method: 'Cash',
  store_id: 1,
  items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
});

it('numbers 50 concurrent creates 0001..0050 across two replicas, every time', async () => {
  for (const date of ['2031-01-01', '2031-01-02', '2031-01-03', '2031-01-04']) {
    const results = await Promise.all(Array.from({ length: 50 }, () => t.post('/lab_bills', bill(date))));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const expected = Array.from(
      { length: 50 },
      (_, i) => `LB-${date.replaceAll('-', '')}-${String(i + 1).padStart(4, '0')}`,
    );
    expect(results.map((r) => r.body.bill_number).sort()).toEqual(expected);
    const listed = await t.get(`/lab_bills?store_id=1&date=${date}&per_page=100`);
    expect(listed.body.bills.map((b: any) => b.bill_number).sort()).toEqual(expected);
    expect(new Set(listed.body.bills.map((b: any) => b.id)).size).toBe(50);
  }
  // Both replicas took part.
  for (const replica of ['billing-1', 'billing-2']) {
    const handled = readFileSync(`${t.stack.logDir}/${replica}.log`, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"subject":"billing.bill.create"'));
    expect(handled.length).toBeGreaterThan(0);
  }
});

it('numbers creates spread over several dates at once gap-free per date, across two replicas', async () => {
  // One batch of a replica holds bills of several dates; a collision in one date must not cost another date a number.
  const dates = ['2031-02-01', '2031-02-02', '2031-02-03', '2031-02-04', '2031-02-05'];
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => t.post('/lab_bills', bill(dates[i % dates.length]!))),
  );
  expect(results.map((r) => r.status)).toEqual(Array(100).fill(201));
  for (const date of dates) {
    const expected = Array.from(
      { length: 20 },
      (_, i) => `LB-${date.replaceAll('-', '')}-${String(i + 1).padStart(4, '0')}`,
    );
    expect(
      results
        .map((r) => r.body.bill_number)
        .filter((n: string) => n.startsWith(`LB-${date.replaceAll('-', '')}-`))
        .sort(),
    ).toEqual(expected);
    const listed = await t.get(`/lab_bills?store_id=1&date=${date}&per_page=100`);
    expect(listed.body.bills.map((b: any) => b.bill_number).sort()).toEqual(expected);
  }
});

it('answers exact list totals and summaries on either replica right after creates, updates and cancels', async () => {
  const dates = ['2092-03-01', '2092-03-02', '2092-03-03'];
  const methods = ['Cash', 'Card', 'Online'] as const;
  const live = new Map<number, { date: string; method: string; status: string; grand: number }>();
  const expectTotals = async () => {
    // Several reads of each, so that both replicas (one queue group) answer some.
    for (let read = 0; read < 6; read++) {
      for (const date of [...dates, undefined]) {
        const bills = [...live.values()].filter((b) => !date || b.date === date);
        const cents = (pick: (b: (typeof bills)[number]) => boolean) =>
          bills.filter(pick).reduce((sum, b) => sum + Math.round(b.grand * 100), 0) / 100;
        const query = `store_id=1${date ? `&date=${date}` : '&from_date=2092-01-01&to_date=2092-12-31'}`;
        const summary = (await t.get(`/lab_bills/summary?${query}`)).body.summary;
        expect({ date, summary }).toEqual({
          date,
          summary: expect.objectContaining({
            total_bills: bills.length,
            pending_count: bills.filter((b) => b.status === 'Pending').length,
            cash_count: bills.filter((b) => b.method === 'Cash').length,
            total_revenue: cents(() => true),
            card_revenue: cents((b) => b.method === 'Card'),
          }),
        });
        const listed = (await t.get(`/lab_bills?${query}&payment_method=Online`)).body;
        expect({ date, total: listed.total }).toEqual({
          date,
          total: bills.filter((b) => b.method === 'Online').length,
        });
      }
    }
  };
  for (let round = 0; round < 4; round++) {
    const created = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const date = dates[(round + i) % 3]!;
        const method = methods[i % 3]!;
        const res = await t.post('/lab_bills', {
          ...bill(date),
          payment_method: method,
          items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 100 + i * 0.33, qty: 1 + (i % 2) }],
        });
        expect(res.status).toBe(201);
        return { id: res.body.bill_id as number, date, method, status: 'Paid', grand: res.body.grand_total as number };
      }),
    );
    for (const { id, ...b } of created) live.set(id, b);
    await expectTotals();
    const [changed, cancelled1, cancelled2] = [...live.keys()].slice(round * 3, round * 3 + 3) as [
      number,
      number,
      number,
    ]; // 10 more each round
    expect((await t.put(`/lab_bills/${changed}`, { payment_method: 'Online', payment_status: 'Pending' })).status).toBe(
      200,
    );
    live.set(changed, { ...live.get(changed)!, method: 'Online', status: 'Pending' });
    for (const id of [cancelled1, cancelled2]) {
      expect((await t.del(`/lab_bills/${id}`)).status).toBe(200);
      live.delete(id);
    }
    await expectTotals();
  }
});

/** Billing's storage layer of its own on the stack's database, as the benchmark's bulk load uses it. */
async function importer(): Promise<{ storage: BillStorage; mongo: MongoClient }> {
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  const nc = await t.nats('billing');
  const log = createLogger('import', 'silent');
  const db = mongo.db('clinic_billing');
  // A writer only: its imports store their cache marks for the billing replicas.
  const versions = new ScopeVersions(nc, 'billing', log);
  const deps = {
    db,
    ids: new IdAllocator(db),
    outbox: new Outbox(db, nc.jetstream(), log),
    cache: new VersionedCache(versions),
    clock: new ClinicClock(TEST_TZ),
  };
  return { storage: new BillStorage(deps, log, BILL_PAYLOADS), mongo };
}

const imported = (date: string, count: number) =>
  Array.from({ length: count }, () => {
    const input = parseNewBill(bill(date), { sub: 1, role: 'admin' });
    return { input, totals: computeTotals(input.items, input.discount_type, input.discount_value) };
  });

/** The bills of a date as stored: `count` of them, numbered 1..count, none twice. */
async function expectNumbered(date: string, count: number): Promise<void> {
  const mongo = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    const stored = await mongo
      .db('clinic_billing')
      .collection('bills')
      .find({ bill_date: date }, { projection: { bill_seq: 1, bill_number: 1 } })
      .toArray();
    expect(stored.map((b) => b.bill_seq).sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    expect(new Set(stored.map((b) => b.bill_number)).size).toBe(count);
  } finally {
    await mongo.close();
  }
}

it('numbers a bulk import on from the live bills of its dates, and live bills on from the import', async () => {
  // The benchmark loads its data set in steps through BillStorage.import, with live bills of the same dates written
  // through the API between the steps: neither side's idea of the next number may be trusted after the other wrote.
  const dates = ['2093-04-01', '2093-04-02'];
  const live = (date: string, count: number) =>
    Promise.all(Array.from({ length: count }, () => t.post('/lab_bills', bill(date))));
  const { storage, mongo } = await importer();
  try {
    for (const step of [0, 1, 2]) {
      expect((await live(dates[step % 2]!, 4)).map((r) => r.status)).toEqual(Array(4).fill(201));
      const stored = await storage.newBills.import([...imported(dates[0]!, 6), ...imported(dates[1]!, 6)], 5);
      // Each bill answered once, as stored.
      expect(stored).toHaveLength(12);
      expect(new Set(stored.map((doc) => doc.bill_number)).size).toBe(12);
    }
    expect((await live(dates[0]!, 3)).map((r) => r.status)).toEqual(Array(3).fill(201));
  } finally {
    await mongo.close();
  }
  // Per date: its live and its imported bills.
  await expectNumbered(dates[0]!, 8 + 18 + 3);
  await expectNumbered(dates[1]!, 4 + 18);
  const listed = await t.get(`/lab_bills?store_id=1&date=${dates[1]}&per_page=100`);
  expect(listed.body.total).toBe(4 + 18);
});

it('stores each bill of a bulk import once when a number collides past the server’s first 100 documents', async () => {
  // The embedded server inserts an ordered insert 100 documents at a time; after a failure it went on to store the
  // next 100, which the import then numbered and stored again (FerretDB patch 0014).
  const [first, second] = ['2093-05-01', '2093-05-02'];
  const { storage, mongo } = await importer();
  try {
    // Number 1 of the second date, taken by a writer that has not raised the date's number hint yet.
    const taken = await t.post('/lab_bills', bill(first));
    const bills = mongo.db('clinic_billing').collection('bills');
    const { _id, ...copy } = (await bills.findOne({ id: taken.body.bill_id }))!;
    await bills.insertOne({
      ...copy,
      _id: '987654321' as never,
      id: 987654321,
      bill_date: second,
      bill_seq: 1,
      bill_number: `LB-${second.replaceAll('-', '')}-0001`,
    });
    // 120 bills of the first date, then 130 of the second: the second date's first number collides at index 120.
    const stored = await storage.newBills.import([...imported(first, 120), ...imported(second, 130)], 250);
    expect(stored).toHaveLength(250);
    expect(new Set(stored.map((doc) => doc.id)).size).toBe(250);
    expect(new Set(stored.map((doc) => doc.bill_number)).size).toBe(250);
  } finally {
    await mongo.close();
  }
  await expectNumbered(first, 1 + 120);
  await expectNumbered(second, 1 + 130);
});
