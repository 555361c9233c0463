/**
 * A NATS user per outside system, declared in configuration: a
 * second system in OUTSIDE_SYSTEMS_FILE gets its user, its password and its
 * own durable consumer, and reads only that one; nothing in the code names it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { branch } from './fixtures';
import { startTestStack, type TestStack } from './harness';

let t: TestStack;
const systems = [
  {
    name: 'hospital',
    publishes_reference: true,
    calls: true,
    reads: ['BILLING_EVENTS', 'CATALOGUE_EVENTS', 'SESSIONS_EVENTS', 'HOSPITAL_REF_DEAD'],
  },
  { name: 'sms_gateway', description: 'Tells patients of their appointments.', reads: ['SESSIONS_EVENTS'] },
];

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'clinic-systems-')), 'outside-systems.json');
  writeFileSync(file, JSON.stringify(systems));
  t = await startTestStack({ env: { OUTSIDE_SYSTEMS_FILE: file } });
  await t.seed({ stores: [branch(1, 'Main')] });
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

it("gives a declared system a user of its own that reads its consumer, and no other system's", async () => {
  const sms = await t.nats('sms_gateway' as never);
  const mine = await sms.jetstream().consumers.get('SESSIONS_EVENTS', 'sms_gateway');
  expect((await mine.info()).config.durable_name).toBe('sms_gateway');
  const refused = async (subject: string) =>
    sms.request(subject, '{}', { timeout: 1_000 }).then(
      () => false,
      (err: { code?: string }) => err.code === 'PERMISSIONS_VIOLATION',
    );
  expect(await refused('$JS.API.CONSUMER.MSG.NEXT.SESSIONS_EVENTS.hospital')).toBe(true);
  expect(await refused('$JS.API.CONSUMER.INFO.BILLING_EVENTS.sms_gateway')).toBe(true);
  expect(await refused('hospital.ref.store')).toBe(true);
  expect(await refused('billing.bill.list')).toBe(true);
  // The system declared by default keeps its own.
  const hospital = await t.nats('hospital');
  expect((await (await hospital.jetstream().consumers.get('BILLING_EVENTS', 'hospital')).info()).name).toBe('hospital');
});
