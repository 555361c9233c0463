/**
 * What the nats-security e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { headers as natsHeaders, type NatsConnection } from 'nats';
import { branch } from './fixtures';
import { sleep, startTestStack, type TestStack } from './harness';

export let t: TestStack;
export let billId: number;
export let chargeId: number;
export const PATIENT = 'Nimal Private-Patient';
export const NIC = 'NIC-PRIVATE-4242';

export const validBill = () => ({
  patient_name: PATIENT,
  patient_contact: '0771234567',
  patient_nic: NIC,
  bill_date: '2093-04-01',
  payment_method: 'Cash',
  store_id: 1,
  items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
  received_amount: 850,
});

/** A request straight to a service, as `nc`'s user, with the given headers; the parsed reply. */
export async function natsCall(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const h = natsHeaders();
  for (const [name, value] of Object.entries(headers)) h.set(name, value);
  return (await nc.request(subject, JSON.stringify(payload), { timeout: 3000, headers: h })).json();
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Subscribes; resolves true once the server has refused (and closed) the subscription. */
export async function subscriptionRefused(nc: NatsConnection, subject: string): Promise<boolean> {
  const sub = nc.subscribe(subject);
  await Promise.race([sub.closed, sleep(3000)]);
  return sub.isClosed();
}

export const billingLog = () =>
  readFileSync(join(t.stack.logDir, 'billing-1.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

beforeAll(async () => {
  t = await startTestStack();
  await t.seed({ stores: [branch(1, 'Main')], patients: [{ id: 1, name: PATIENT }] });
  chargeId = (await t.post('/hospital_charges', { charge_name: 'CBC', charge_type: 'Lab', amount: 850, store_id: 1 }))
    .body.charge_id;
  billId = (await t.post('/lab_bills', validBill())).body.bill_id;
  if (!chargeId || !billId) throw new Error('setup failed');
});
afterAll(async () => {
  await t?.stop();
});
