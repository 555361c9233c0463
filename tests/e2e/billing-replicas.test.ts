/**
 * Bill numbers with two billing replicas sharing the load through their queue
 * group: still 0001..0050 for 50 concurrent creates, no gap, no duplicate.
 */
import { readFileSync } from 'node:fs';
import { startTestStack, type TestStack } from './harness';

let t: TestStack;
let chargeId: number;

beforeAll(async () => {
  t = await startTestStack({ replicas: { billing: 2 } });
  await t.seed({ stores: [{ id: 1, name: 'Main', status: 'active' }] });
  chargeId = (await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 })).body.charge_id;
});
afterAll(async () => {
  await t?.stop();
});

const bill = (bill_date: string) => ({
  patient_name: 'P', patient_contact: 'C', bill_date, payment_method: 'Cash', store_id: 1,
  items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
});

it('numbers 50 concurrent creates 0001..0050 across two replicas, every time', async () => {
  for (const date of ['2031-01-01', '2031-01-02', '2031-01-03', '2031-01-04']) {
    const results = await Promise.all(Array.from({ length: 50 }, () => t.post('/lab_bills', bill(date))));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    const expected = Array.from({ length: 50 }, (_, i) => `LB-${date.replaceAll('-', '')}-${String(i + 1).padStart(4, '0')}`);
    expect(results.map((r) => r.body.bill_number).sort()).toEqual(expected);
    const listed = await t.get(`/lab_bills?store_id=1&date=${date}&per_page=100`);
    expect(listed.body.bills.map((b: any) => b.bill_number).sort()).toEqual(expected);
    expect(new Set(listed.body.bills.map((b: any) => b.id)).size).toBe(50);
  }
  // Both replicas took part.
  for (const replica of ['billing-1', 'billing-2']) {
    const handled = readFileSync(`${t.stack.logDir}/${replica}.log`, 'utf8').split('\n').filter((l) => l.includes('"subject":"billing.bill.create"'));
    expect(handled.length).toBeGreaterThan(0);
  }
});
