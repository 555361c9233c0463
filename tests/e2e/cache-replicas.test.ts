/**
 * Issue 31's proof that hot reads are never stale: two catalogue replicas and
 * one of sessions and of billing, each answering repeated reads from memory.
 * Every write is followed, once acknowledged, by reads of the list and of the
 * record that must show it;
 * the services' request log lines (one per request, with the correlation id
 * the test sent) tell which replica answered each, so that the test counts
 * the rounds whose write and read went through different replicas.
 */
import { readFileSync } from 'node:fs';
import { startTestStack, type TestStack } from './harness';

let t: TestStack;

beforeAll(async () => {
  // What is asserted is what each read shows, not the speed: a loaded machine must not turn writes into 504s.
  t = await startTestStack({ replicas: { catalogue: 2 }, env: { REQUEST_TIMEOUT_MS: '20000' } });
  await t.seed({
    stores: [{ id: 1, name: 'Main', status: 'active' }],
    doctors: [
      {
        id: 1,
        name: 'Dr. Cache',
        reg_no: 'SLMC-31',
        specialization: 'Cardiology',
        channeling_fee: 2500,
        status: 'Active',
        store_id: 1,
        schedule: [],
      },
    ],
  });
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

const tagged = (id: string) => ({ headers: { 'x-correlation-id': id } });

/** Which replica's log holds a request line for each correlation id (the lines may reach the files late). */
function answeredBy(service: string, replicas: number, ids: string[]): Map<string, string> {
  const found = new Map<string, string>();
  const wanted = new Set(ids);
  for (let i = 1; i <= replicas; i++) {
    for (const line of readFileSync(`${t.stack.logDir}/${service}-${i}.log`, 'utf8').split('\n')) {
      const match = /"correlation_id":"([^"]+)"/.exec(line);
      if (match && wanted.has(match[1]!) && line.includes('"status":')) found.set(match[1]!, `${service}-${i}`);
    }
  }
  return found;
}

/**
 * `rounds` writes, each followed by a read once acknowledged; a few reads
 * before each write keep the replicas' entries warm, so a replica that missed
 * the write would answer from memory. Returns the stale reads and how many
 * rounds read through another replica than the one that wrote.
 */
async function rounds(
  service: string,
  replicas: number,
  count: number,
  step: {
    write(i: number, id: string): Promise<number>;
    read(id: string): Promise<unknown>;
    expected(i: number): unknown;
  },
) {
  let stale = 0;
  const pairs: Array<[string, string]> = [];
  for (let i = 1; i <= count; i++) {
    for (let w = 0; w < 2 * replicas; w++) await step.read(`${service}-warm-${i}-${w}`);
    const writeId = `${service}-write-${i}`;
    expect(await step.write(i, writeId)).toBe(200);
    const readId = `${service}-read-${i}`;
    const seen = await step.read(readId);
    if (JSON.stringify(seen) !== JSON.stringify(step.expected(i))) stale++;
    pairs.push([writeId, readId]);
  }
  const ids = pairs.flat();
  let by = answeredBy(service, replicas, ids);
  for (let wait = 0; wait < 50 && by.size < ids.length; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    by = answeredBy(service, replicas, ids);
  }
  const across = pairs.filter(
    ([w, r]) => by.get(w) !== undefined && by.get(r) !== undefined && by.get(w) !== by.get(r),
  );
  return { stale, across: across.length };
}

it('catalogue: 1,000 price changes, each read right after (the list and the charge) through either replica, never stale', async () => {
  const created = await t.post('/hospital_charges', { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 1 });
  const id = created.body.charge_id;
  const result = await rounds('catalogue', 2, 1000, {
    write: async (i, cid) =>
      (
        await t.put(
          `/hospital_charges/${id}`,
          { charge_name: 'CBC', charge_type: 'Lab', amount: 1000 + i },
          tagged(cid),
        )
      ).status,
    read: async (cid) => {
      const list = await t.get('/hospital_charges?store_id=1', tagged(cid));
      const one = await t.get(`/hospital_charges/${id}`, tagged(`${cid}-one`));
      return [list.body.charges?.find((c: { id: number }) => c.id === id)?.amount, one.body.charge?.amount];
    },
    expected: (i) => [1000 + i, 1000 + i],
  });
  expect(result.stale).toBe(0);
  // About half the rounds read through the other replica (the queue group picks at random).
  expect(result.across).toBeGreaterThan(250);
}, 600_000);

it('sessions: 300 changes, each read right after (the day and the session) through the replica that wrote it, never stale', async () => {
  const created = await t.post('/add_session', {
    doctor_id: 1,
    session_date: '2091-03-01',
    session_no: 1,
    start_time: '08:00',
    end_time: '10:00',
    max_patients: 1,
  });
  expect(created.status).toBe(201);
  const id = created.body.session_id;
  const result = await rounds('sessions', 1, 300, {
    write: async (i, cid) => (await t.put(`/update_session/${id}`, { max_patients: 10 + i }, tagged(cid))).status,
    read: async (cid) => {
      const list = await t.get('/all_sessions?doctor_id=1&date=2091-03-01', tagged(cid));
      const one = await t.get(`/get_session/${id}`, tagged(`${cid}-one`));
      return [
        list.body.sessions?.find((s: { id: number }) => s.id === id)?.max_patients,
        one.body.session?.max_patients,
      ];
    },
    expected: (i) => [10 + i, 10 + i],
  });
  expect(result.stale).toBe(0);
}, 600_000);

it('billing: 300 changes of a bill, each read right after (its page of the list and the bill), never stale', async () => {
  const charge = await t.post('/hospital_charges', {
    store_id: 1,
    charge_name: 'FBS',
    charge_type: 'Lab',
    amount: 500,
  });
  const created = await t.post('/lab_bills', {
    patient_name: 'P0',
    patient_contact: 'C',
    bill_date: '2091-03-02',
    payment_method: 'Cash',
    store_id: 1,
    items: [{ charge_id: charge.body.charge_id, charge_name: 'FBS', unit_price: 500, qty: 1 }],
  });
  expect(created.status).toBe(201);
  const id = created.body.bill_id;
  const result = await rounds('billing', 1, 300, {
    write: async (i, cid) => (await t.put(`/lab_bills/${id}`, { notes: `change ${i}` }, tagged(cid))).status,
    read: async (cid) => {
      const list = await t.get('/lab_bills?store_id=1&date=2091-03-02', tagged(cid));
      const one = await t.get(`/lab_bills/${id}`, tagged(`${cid}-one`));
      return [list.body.bills?.find((b: { id: number }) => b.id === id)?.notes, one.body.bill?.notes];
    },
    expected: (i) => [`change ${i}`, `change ${i}`],
  });
  expect(result.stale).toBe(0);
}, 600_000);
