/**
 * What the catalogue e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import dayjs from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';
import type { NatsConnection } from 'nats';
import type { operations } from '@clinic/client';
import { answerOf, fileStack, type RequestOptions } from './harness';

dayjs.extend(utc);
dayjs.extend(timezone);

export const t = fileStack();
export let nc: NatsConnection;
export let nextStore = 100;
/** A store of its own for each test, so tests do not see each other's charges. */
export const freshStore = () => nextStore++;

beforeAll(async () => {
  nc = await t.nats('hospital');
});

export type NewCharge = operations['createHospitalCharge']['requestBody']['content']['application/json'];

/** A valid new charge, as the typed client takes one; `overrides` may make it invalid (the tests of refusals). */
export const valid = (storeId: number, overrides: Record<string, unknown> = {}): NewCharge => ({
  charge_name: 'Full Blood Count',
  charge_type: 'Lab',
  amount: 850,
  store_id: storeId,
  ...overrides,
});

export async function create(body: NewCharge, opts = {}) {
  return answerOf(t.api(opts).POST('/hospital_charges', { body }));
}

/** GET /hospital_charges/{charge_id} as the typed client calls it. */
export function readCharge(charge_id: number) {
  return answerOf(t.api().GET('/hospital_charges/{charge_id}', { params: { path: { charge_id } } }));
}

export type ChargeUpdate = operations['updateHospitalCharge']['requestBody']['content']['application/json'];

/** PUT /hospital_charges/{charge_id}, as the default token unless `as` says otherwise. */
export function updateCharge(charge_id: number, body: ChargeUpdate, as: RequestOptions = {}) {
  return answerOf(t.api(as).PUT('/hospital_charges/{charge_id}', { params: { path: { charge_id } }, body }));
}

/** DELETE /hospital_charges/{charge_id}, as the default token unless `as` says otherwise. */
export function deleteCharge(charge_id: number, as: RequestOptions = {}) {
  return answerOf(t.api(as).DELETE('/hospital_charges/{charge_id}', { params: { path: { charge_id } } }));
}

export async function listAll(storeId: number, query = '') {
  const res = await t.get(`/hospital_charges?store_id=${storeId}${query}`);
  expect(res.status).toBe(200);
  return res.body.charges as Array<Record<string, any>>;
}
