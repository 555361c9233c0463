/**
 * No answer is lost to NATS's payload limit (1 MiB here): a reply larger than
 * one message comes in several and the gateway joins them; a body is forwarded
 * as it came, so it cannot outgrow the limit on the way; a reply beyond the
 * limit a service keeps (REPLY_CHUNKS_MAX messages, 3 in this stack) is a 413
 * in the envelope, never a 5xx or a 504; so is a body the gateway's limit
 * allows (BODY_LIMIT_BYTES, 2 MiB here) but one NATS message cannot carry.
 */
import { EventSubjects } from '@clinic/contracts';
import { EventReader } from './events';
import { branch } from './fixtures';
import { startTestStack, type TestStack, failureOf } from './harness';

let t: TestStack;
const NOTE = 'n'.repeat(2000);
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

beforeAll(async () => {
  t = await startTestStack({
    env: { REPLY_CHUNKS_MAX: '3', REQUEST_TIMEOUT_MS: '30000', BODY_LIMIT_BYTES: String(2 * 1024 * 1024) },
  });
  await t.seed({
    stores: [branch(1, 'Main')],
    doctors: Array.from({ length: 40 }, (_, i) => ({
      id: i + 1,
      name: `Dr. Busy ${i + 1}`,
      reg_no: `R-${i + 1}`,
      specialization: 'General',
      channeling_fee: 1000,
      status: 'Active',
      store_id: 1,
      schedule: DAYS.flatMap((day) =>
        [1, 2].map((session_no) => ({
          day,
          session_no,
          start_time: `0${6 + session_no}:00`,
          end_time: `0${7 + session_no}:00`,
          max_patients: 10,
        })),
      ),
    })),
  });
});
afterAll(async () => {
  await t?.stop();
});

async function createCharges(store: number, count: number): Promise<void> {
  for (let i = 0; i < count; i += 40) {
    const batch = Array.from({ length: Math.min(40, count - i) }, (_, j) =>
      t.post('/hospital_charges', {
        store_id: store,
        charge_name: `Charge ${i + j}`,
        charge_type: 'Lab',
        amount: 100 + i + j,
        notes: NOTE,
      }),
    );
    for (const res of await Promise.all(batch)) expect(res.status).toBe(201);
  }
}

it('answers a list larger than one NATS message whole', async () => {
  await createCharges(10, 480);
  const res = await t.get('/hospital_charges?store_id=10');
  expect(res.status).toBe(200);
  expect(JSON.stringify(res.body).length).toBeGreaterThan(1024 * 1024);
  expect(res.body.count).toBe(480);
  expect(res.body.charges.map((c: any) => c.charge_name)).toEqual(
    Array.from({ length: 480 }, (_, i) => `Charge ${i}`).sort((a, b) => a.localeCompare(b)),
  );
  expect(res.body.charges.every((c: any) => c.notes === NOTE)).toBe(true);
});

it('answers every session when no filter is given, however many there are', async () => {
  const year = new Date().getUTCFullYear() + 20;
  let created = 0;
  for (const month of ['01', '02']) {
    const res = await t.post('/auto_create_sessions', { month: `${year}-${month}` });
    expect(res.status).toBe(201);
    created += res.body.created;
  }
  const res = await t.get('/all_sessions');
  expect(res.status).toBe(200);
  expect(JSON.stringify(res.body).length).toBeGreaterThan(1024 * 1024);
  expect(res.body.sessions).toHaveLength(created);
  expect(new Set(res.body.sessions.map((s: any) => s.id)).size).toBe(created);
});

it('publishes one created event per session of a month stored in several inserts', async () => {
  // 40 doctors with 14 sessions a week: about 2,400 sessions, inserted and recorded 500 at a time.
  const month = `${new Date().getUTCFullYear() + 20}-03`;
  const reader = await EventReader.start(await t.nats(), 'SESSIONS_EVENTS');
  try {
    const res = await t.post('/auto_create_sessions', { month });
    expect(res.status).toBe(201);
    expect(res.body.created).toBeGreaterThan(2000);
    expect(res.body.errors).toEqual([]);
    const stored = (await t.get('/all_sessions')).body.sessions.filter((s: any) => s.session_date.startsWith(month));
    expect(stored).toHaveLength(res.body.created);
    // About 2,400 events, each stored with its own fsync: ten seconds was too short on a loaded machine.
    const events = await reader.waitFor(
      (e) => e.subject === EventSubjects.sessionCreated && e.event.data.session.session_date.startsWith(month),
      res.body.created,
      45_000,
    );
    const published = events.map((e) => e.event.data.session.id);
    expect(new Set(published).size).toBe(res.body.created);
    expect(new Set(published)).toEqual(new Set(stored.map((s: any) => s.id)));
  } finally {
    reader.stop();
  }
}, 90_000);

it('forwards a body as it came, so that it cannot outgrow the limit on the way', async () => {
  const charge = (
    await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 850 })
  ).body.charge_id;
  const bill = {
    patient_name: 'P',
    patient_contact: 'C',
    bill_date: '2090-01-01',
    payment_method: 'Card',
    store_id: 1,
    items: [{ charge_id: charge, charge_name: 'CBC', unit_price: 850, qty: 1 }],
  };
  // 100,000 numbers written `1e20` are 400 KB; re-encoded, 2.2 MB.
  const numbers = `{${JSON.stringify(bill).slice(1, -1)},"readings":[${Array(100_000).fill('1e20').join(',')}]}`;
  expect(numbers.length).toBeLessThan(512 * 1024);
  const created = await t.post('/lab_bills', undefined, {
    rawBody: numbers,
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  // 400 KB of bytes that are not UTF-8 become 400,000 replacement characters: too long a note, said in the envelope.
  const invalid = Buffer.concat([
    Buffer.from(`{${JSON.stringify(bill).slice(1, -1)},"notes":"`),
    Buffer.alloc(400_000, 0xff),
    Buffer.from('"}'),
  ]);
  const refused = await t.post('/lab_bills', undefined, {
    rawBody: invalid,
    headers: { 'content-type': 'application/json' },
  });
  expect(refused.status).toBe(400);
  expect(refused.body).toEqual(failureOf('notes must be at most 2000 characters.'));
});

it('answers a body larger than one NATS message with 413 in the envelope', async () => {
  const body = JSON.stringify({ patient_name: 'P', padding: 'x'.repeat(1_500_000) });
  const res = await t.post('/lab_bills', undefined, { rawBody: body, headers: { 'content-type': 'application/json' } });
  expect(res.status).toBe(413);
  expect(res.body).toEqual({ success: false, error: 'Request body is too large.', code: 'BODY_TOO_LARGE' });
});

it('answers a reply beyond the messages a service allows with 413 in the envelope', async () => {
  await createCharges(11, 1600);
  const res = await t.get('/hospital_charges?store_id=11');
  expect({ status: res.status, body: res.body }).toEqual({
    status: 413,
    body: {
      success: false,
      error: 'The answer is too large to send. Narrow the request with its filters.',
      code: 'REPLY_TOO_LARGE',
    },
  });
  expect((await t.get('/hospital_charges?store_id=11&search=Charge%201')).status).toBe(200);
});
