/**
 * What the audit-trail e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import { EventReader } from './events';
import { branch } from './fixtures';
import { startTestStack, type TestStack } from './harness';

export let t: TestStack;
export let charge: number;
export let events: EventReader;

beforeAll(async () => {
  t = await startTestStack();
  await t.seed({
    stores: [branch(1, 'Main')],
    users: [{ id: 7, name: 'Kasun Silva' }],
  });
  charge = (await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 }))
    .body.charge_id;
  events = await EventReader.start(await t.nats('hospital'), 'BILLING_EVENTS');
});
afterAll(async () => {
  events?.stop();
  await t?.stop();
});

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

export function bill(overrides: Record<string, unknown> = {}) {
  return {
    patient_name: 'Nimal Fernando',
    patient_contact: '0771234567',
    bill_date: '2093-05-14',
    payment_method: 'Cash',
    store_id: 1,
    items: [{ charge_id: charge, charge_name: 'CBC', unit_price: 850, qty: 2 }],
    discount_type: 'pct',
    discount_value: 10,
    received_amount: 2000,
    balance_amount: 470,
    ...overrides,
  };
}

export async function createBill(
  overrides: Record<string, unknown> = {},
): Promise<{ bill_id: number; bill_number: string }> {
  const res = await t.post('/lab_bills', bill(overrides));
  expect(res.status).toBe(201);
  return res.body;
}

export const cancel = (id: number, body?: unknown, headers: Record<string, string> = {}) =>
  t.request('DELETE', `/lab_bills/${id}`, body, { headers });
export const historyOf = async (id: number) => {
  const res = await t.get(`/lab_bills/${id}/history`);
  expect(res.status).toBe(200);
  return res.body.history as any[];
};
