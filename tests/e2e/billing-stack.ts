/**
 * What the billing e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import type { operations } from '@clinic/client';
import { answerOf, startTestStack, type TestStack } from './harness';
import { ADMIN_USER, KASUN, MAIN_BRANCH, PATIENTS, SECOND_BRANCH, cbcIn, chargeIn } from './fixtures';

export type NewBill = operations['createLabBill']['requestBody']['content']['application/json'];
export type BillChanges = operations['updateLabBill']['requestBody']['content']['application/json'];

export let t: TestStack;
/** Charge ids by store: `chargesOf(store).active` may be billed there. */
export const charges: Record<number, { active: number; second: number }> = {};
export function chargesOf(store: number): { active: number; second: number } {
  const made = charges[store];
  if (!made) throw new Error(`no charges were made in store ${store}`);
  return made;
}
export let inactiveCharge: number;
export let deletedCharge: number;

export const LIST_STORES = Array.from({ length: 12 }, (_, i) => 10 + i);

beforeAll(async () => {
  t = await startTestStack();
  await t.seed({
    stores: [
      MAIN_BRANCH,
      SECOND_BRANCH,
      { id: 3, name: 'Closed branch', status: 'inactive' },
      ...LIST_STORES.map((id) => ({ id, name: `Store ${id}`, status: 'active' })),
    ],
    users: [ADMIN_USER, KASUN],
    patients: PATIENTS,
  });
  for (const store of [1, 2, ...LIST_STORES]) {
    charges[store] = { active: await cbcIn(t, store), second: await chargeIn(t, store, 'Lipid', 2400) };
  }
  inactiveCharge = await chargeIn(t, 1, 'Old', 1, { status: 'Inactive' });
  deletedCharge = await chargeIn(t, 1, 'Gone', 1);
  await answerOf(t.api().DELETE('/hospital_charges/{charge_id}', { params: { path: { charge_id: deletedCharge } } }));
});
afterAll(async () => {
  await t?.stop();
});

export let dateCounter = 0;
/** A bill date no other test uses, so numbering starts at 0001. */
export function freshDate(): string {
  dateCounter++;
  const d = new Date(Date.UTC(2091, 0, 1) + dateCounter * 86_400_000);
  return d.toISOString().slice(0, 10);
}

/** A valid new bill, as the typed client takes one; `overrides` may make it invalid (the tests of refusals). */
export function bill(overrides: Record<string, unknown> = {}, store = 1): NewBill {
  return {
    patient_name: 'Nimal Fernando',
    patient_contact: '0771234567',
    bill_date: '2090-11-21',
    payment_method: 'Card',
    store_id: store,
    items: [{ charge_id: chargesOf(store).active, charge_name: 'CBC', unit_price: 850, qty: 1 }],
    ...overrides,
  };
}

export async function createBill(
  overrides: Record<string, unknown> = {},
  options: Parameters<TestStack['post']>[2] = {},
  store = 1,
) {
  const res = await answerOf(t.api(options).POST('/lab_bills', { body: bill(overrides, store) }));
  expect(res.status).toBe(201);
  return res.body as { bill_id: number; bill_number: string; grand_total: number };
}

/** PUT /lab_bills/{id} as an admin: the answer, whatever it is. */
export function updateBill(id: number, body: BillChanges) {
  return answerOf(t.api().PUT('/lab_bills/{bill_id}', { params: { path: { bill_id: id } }, body }));
}

export async function readBill(id: number) {
  const res = await answerOf(t.api().GET('/lab_bills/{bill_id}', { params: { path: { bill_id: id } } }));
  expect(res.status).toBe(200);
  return res.body.bill;
}

export async function countBills(store: number) {
  return (await answerOf(t.api().GET('/lab_bills', { params: { query: { store_id: store, per_page: 100 } } }))).body
    .total as number;
}
