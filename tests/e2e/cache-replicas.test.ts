/**
 * Issue 31's proof that hot reads are never stale: two gateways in front of
 * two catalogue replicas and one of sessions and of billing, each gateway and
 * each replica answering repeated reads from memory. Every write goes through
 * one gateway and is followed, once acknowledged, by reads of the list and of
 * the record through the other gateway, which must show it. The services'
 * request log lines (one per request, with the correlation id the test sent)
 * tell which replica answered each, so that the test counts the rounds whose
 * write and read went through different replicas; the gateways' lines tell
 * which reads their reply caches answered.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BRANCH_MESSAGES } from '@clinic/contracts';
import type { ManagedProcess } from '@clinic/devstack';
import { branch, chargeIn, doctor } from './fixtures';
import { startSecondGateway, startTestStack, type RequestOptions, type TestStack } from './harness';

let t: TestStack;
let second: ManagedProcess;
let gateways: [string, string];

beforeAll(async () => {
  // What is asserted is what each read shows, not the speed: a loaded machine must not turn writes into 504s.
  t = await startTestStack({ replicas: { catalogue: 2 }, env: { REQUEST_TIMEOUT_MS: '20000' } });
  const started = await startSecondGateway(t);
  second = started.process;
  gateways = [t.url, started.url];
  await t.seed({
    stores: [branch(1, 'Main'), branch(2, 'Kandy')],
    doctors: [doctor(1, { name: 'Dr. Cache' })],
  });
}, 120_000);
afterAll(async () => {
  await second?.stop();
  await t?.stop();
});

const tagged = (id: string, baseUrl?: string): RequestOptions => ({ headers: { 'x-correlation-id': id }, baseUrl });

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

/** The gateways' request lines answered from their reply caches, of correlation ids starting with `prefix`. */
function gatewayHits(prefix: string): number {
  const lines = ['gateway.log', 'gateway-2.log'].flatMap((file) =>
    readFileSync(join(t.stack.logDir, file), 'utf8').split('\n'),
  );
  return lines.filter((line) => line.includes('"cache":"hit"') && line.includes(`"correlation_id":"${prefix}`)).length;
}

/**
 * `rounds` writes, each through one gateway (in turn), each followed by a read through the other once
 * acknowledged; a few reads through both before each write keep the gateways' and the replicas' entries warm,
 * so that one that missed the write would answer from memory. Returns the stale reads, how many rounds read
 * through another replica than the one that wrote, and how many warm reads a gateway answered from memory.
 */
async function rounds(
  service: string,
  replicas: number,
  count: number,
  step: {
    write(i: number, options: RequestOptions): Promise<number>;
    read(options: RequestOptions): Promise<unknown>;
    expected(i: number): unknown;
  },
  label = service,
) {
  let stale = 0;
  const pairs: Array<[string, string]> = [];
  for (let i = 1; i <= count; i++) {
    const [writer, reader] = i % 2 === 0 ? gateways : [gateways[1], gateways[0]];
    for (let w = 0; w < 2 * replicas; w++) {
      for (const base of [writer, reader]) await step.read(tagged(`${label}-warm-${i}-${w}`, base));
    }
    const writeId = `${label}-write-${i}`;
    expect(await step.write(i, tagged(writeId, writer))).toBe(200);
    const readId = `${label}-read-${i}`;
    const seen = await step.read(tagged(readId, reader));
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
  return { stale, across: across.length, hits: gatewayHits(`${label}-warm-`) };
}

const withId = (options: RequestOptions, suffix: string): RequestOptions => ({
  ...options,
  headers: { 'x-correlation-id': `${options.headers?.['x-correlation-id']}-${suffix}` },
});

it('catalogue: 1,000 price changes, each read right after (the list and the charge) through the other gateway, never stale', async () => {
  const id = await chargeIn(t, 1, 'CBC', 1);
  const result = await rounds('catalogue', 2, 1000, {
    write: async (i, options) =>
      (await t.put(`/hospital_charges/${id}`, { charge_name: 'CBC', charge_type: 'Lab', amount: 1000 + i }, options))
        .status,
    read: async (options) => {
      const list = await t.get('/hospital_charges?store_id=1', options);
      const one = await t.get(`/hospital_charges/${id}`, withId(options, 'one'));
      return [list.body.charges?.find((c: { id: number }) => c.id === id)?.amount, one.body.charge?.amount];
    },
    expected: (i) => [1000 + i, 1000 + i],
  });
  expect(result.stale).toBe(0);
  // About half the rounds read through the other replica (the queue group picks at random).
  expect(result.across).toBeGreaterThan(250);
  // Most warm reads were answered by a gateway's reply cache: else this would not test it.
  expect(result.hits).toBeGreaterThan(2000);
}, 600_000);

it('sessions: 300 changes, each read right after (the day and the session) through the other gateway, never stale', async () => {
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
    write: async (i, options) => (await t.put(`/update_session/${id}`, { max_patients: 10 + i }, options)).status,
    read: async (options) => {
      const list = await t.get('/all_sessions?doctor_id=1&date=2091-03-01', options);
      const one = await t.get(`/get_session/${id}`, withId(options, 'one'));
      return [
        list.body.sessions?.find((s: { id: number }) => s.id === id)?.max_patients,
        one.body.session?.max_patients,
      ];
    },
    expected: (i) => [10 + i, 10 + i],
  });
  expect(result.stale).toBe(0);
  expect(result.hits).toBeGreaterThan(300);
}, 600_000);

it('billing: 300 bills, each counted right after (the page, the summary, the new bill) through the other gateway', async () => {
  const chargeId = await chargeIn(t, 1, 'FBS', 500);
  const bill = (i: number) => ({
    patient_name: `P${i}`,
    patient_contact: 'C',
    bill_date: '2091-03-02',
    payment_method: 'Cash',
    store_id: 1,
    items: [{ charge_id: chargeId, charge_name: 'FBS', unit_price: 500, qty: 1 }],
  });
  let latest = 0;
  const result = await rounds('billing', 1, 300, {
    write: async (i, options) => {
      const created = await t.post('/lab_bills', bill(i), options);
      latest = created.body.bill_id;
      return created.status === 201 ? 200 : created.status;
    },
    read: async (options) => {
      const list = await t.get('/lab_bills?store_id=1&date=2091-03-02', options);
      const summary = await t.get('/lab_bills/summary?store_id=1&date=2091-03-02', withId(options, 'summary'));
      const one = await t.get(`/lab_bills/${latest}`, withId(options, 'one'));
      return [list.body.total, summary.body.summary?.total_bills, one.body.bill?.patient_name];
    },
    expected: (i) => [i, i, `P${i}`],
  });
  expect(result.stale).toBe(0);
  expect(result.hits).toBeGreaterThan(300);
  // One bill changed 100 times, read right after through the other gateway (billing reads it from its
  // database; the gateways keep its reply).
  const notes = await rounds(
    'billing',
    1,
    100,
    {
      write: async (i, options) => (await t.put(`/lab_bills/${latest}`, { notes: `change ${i}` }, options)).status,
      read: async (options) => (await t.get(`/lab_bills/${latest}`, options)).body.bill?.notes,
      expected: (i) => `change ${i}`,
    },
    'bill-notes',
  );
  expect(notes.stale).toBe(0);
  expect(notes.hits).toBeGreaterThan(100);
  // The same read by a cashier of branch 1 only: billing reads the branch's versions first, then the bill once.
  const cashier = t.token('cashier', 7, 3600, [1]);
  const branchNotes = await rounds(
    'billing',
    1,
    100,
    {
      write: async (i, options) => (await t.put(`/lab_bills/${latest}`, { notes: `branch ${i}` }, options)).status,
      read: async (options) => (await t.get(`/lab_bills/${latest}`, { ...options, token: cashier })).body.bill?.notes,
      expected: (i) => `branch ${i}`,
    },
    'bill-notes-branch',
  );
  expect(branchNotes.stale).toBe(0);
  expect(branchNotes.hits).toBeGreaterThan(100);
}, 600_000);

it("answers a kept reply to its own caller only: another branch's or role's token gets its refusal, an expired one 401", async () => {
  const id = await chargeIn(t, 1, 'TSH', 9);
  const mainCashier = t.token('cashier', 7, 3600, [1]);
  for (const baseUrl of gateways) {
    // Kept for the Main branch's cashier: the second reads are hits.
    let etag = '';
    for (const n of [1, 2]) {
      const as = { token: mainCashier, baseUrl };
      expect((await t.get('/hospital_charges?store_id=1', { ...as, ...tagged(`own-list-${n}`, baseUrl) })).status).toBe(
        200,
      );
      const one = await t.get(`/hospital_charges/${id}`, { ...as, ...tagged(`own-one-${n}`, baseUrl) });
      expect(one.status).toBe(200);
      etag = one.headers.get('etag') ?? '';
    }
    // Kandy's cashier asks the same paths: refused as if nothing were kept.
    const kandy = { token: t.token('cashier', 8, 3600, [2]), baseUrl };
    const list = await t.get('/hospital_charges?store_id=1', kandy);
    expect(list.status).toBe(403);
    expect(list.body).toMatchObject({ success: false, error: BRANCH_MESSAGES.notAllowed, code: 'BRANCH_NOT_ALLOWED' });
    const one = await t.get(`/hospital_charges/${id}`, kandy);
    expect(one.status).toBe(404);
    expect(one.body.success).toBe(false);
    // A role that may not read charges at all, and the same cashier with an expired token: the gateway's own checks,
    // which run before its reply cache is looked up (the two Kandy reads above are what the key's token decides).
    const doctor = { token: t.token('doctor', 9, 3600, [1]), baseUrl };
    expect((await t.get('/hospital_charges?store_id=1', doctor)).status).toBe(403);
    const expired = { token: t.token('cashier', 7, -60, [1]), baseUrl };
    expect((await t.get('/hospital_charges?store_id=1', expired)).status).toBe(401);
    // A kept charge keeps its ETag: 304 for the tag it has, with the correlation id answered back.
    const unchanged = await t.get(`/hospital_charges/${id}`, {
      token: mainCashier,
      baseUrl,
      headers: { 'if-none-match': etag, 'x-correlation-id': 'own-etag' },
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('x-correlation-id')).toBe('own-etag');
  }
  expect(gatewayHits('own-list-2')).toBe(2);
  expect(gatewayHits('own-one-2')).toBe(2);
  expect(gatewayHits('own-etag')).toBe(2);
}, 120_000);
