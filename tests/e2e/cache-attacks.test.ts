/**
 * The caches as an attacker holding one process's NATS password would try
 * them, and as a gateway that stops answering: writes keep their latency and
 * their answers, the read right after each shows it, and a version no cache
 * can read is dropped and counted (docs/CACHE.md).
 */
import { AckPolicy, DeliverPolicy, headers, type MsgHdrs } from 'nats';
import { cacheSubjectsOf, SERVICE_NAMES } from '@clinic/contracts';
import type { ManagedProcess } from '@clinic/devstack';
import { branch, doctor } from './fixtures';
import { counterOf, eventually, sleep, startSecondGateway, startTestStack, type TestStack } from './harness';

let t: TestStack;
let second: { url: string; process: ManagedProcess };
let chargeId: number;
let sessionId: number;
let round = 0;

beforeAll(async () => {
  t = await startTestStack();
  second = await startSecondGateway(t);
  await t.seed({ stores: [branch(1, 'Main')], doctors: [doctor(7, { name: 'Dr. Attack', store_id: 1 })] });
  chargeId = (await t.post('/hospital_charges', { charge_name: 'CBC', charge_type: 'Lab', amount: 850, store_id: 1 }))
    .body.charge_id;
  sessionId = (
    await t.post('/add_session', {
      doctor_id: 7,
      session_date: '2091-03-01',
      session_no: 1,
      start_time: '09:00',
      end_time: '12:00',
    })
  ).body.session_id;
}, 120_000);
afterAll(async () => {
  await second?.process.stop();
  await t?.stop();
});

type Timings = Record<'bill' | 'payment' | 'charge' | 'session', number[]>;

const timed = async <T>(into: number[], work: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  const result = await work();
  into.push(performance.now() - started);
  return result;
};

/**
 * A bill, its payment, a charge's new price and a session's new start, each through the first gateway and read
 * right after through the second: every answer 2xx, every read shows the write.
 */
async function writeRounds(count: number): Promise<Timings> {
  const timings: Timings = { bill: [], payment: [], charge: [], session: [] };
  const other = { baseUrl: second.url };
  for (let i = 0; i < count; i++) {
    round++;
    const bill = await timed(timings.bill, () =>
      t.post('/lab_bills', {
        patient_name: 'Attack Patient',
        patient_contact: '0770000000',
        bill_date: '2091-03-01',
        payment_method: 'Cash',
        payment_status: 'Pending',
        store_id: 1,
        items: [{ charge_id: chargeId, charge_name: 'CBC', unit_price: 850, qty: 1 }],
      }),
    );
    expect(bill.status).toBe(201);
    const billId = bill.body.bill_id;
    const paid = await timed(timings.payment, () =>
      t.post(`/lab_bills/${billId}/payments`, { amount: 850, method: 'Cash', received_amount: 1000 }),
    );
    expect(paid.status).toBe(201);
    expect((await t.get(`/lab_bills/${billId}`, other)).body.bill.payment_status).toBe('Paid');

    const price = 850 + round;
    const charge = await timed(timings.charge, () =>
      t.put(`/hospital_charges/${chargeId}`, {
        charge_name: 'CBC',
        charge_type: 'Lab',
        amount: price,
        status: 'Active',
        store_id: 1,
      }),
    );
    expect(charge.status).toBe(200);
    const listed = (await t.get('/hospital_charges?store_id=1', other)).body.charges;
    expect(listed.find((c: { id: number }) => c.id === chargeId).amount).toBe(price);

    const start = `0${7 + (round % 3)}:${String(round % 60).padStart(2, '0')}`;
    const session = await timed(timings.session, () => t.put(`/update_session/${sessionId}`, { start_time: start }));
    expect(session.status).toBe(200);
    expect((await t.get(`/get_session/${sessionId}`, other)).body.session.start_time).toBe(start);
  }
  return timings;
}

function forgedSequence(): MsgHdrs {
  const forged = headers();
  forged.set('Nats-Sequence', '999999999');
  forged.set('Nats-Last-Sequence', '1');
  return forged;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Each kind of write at its usual latency: its median within twice the one before and 20 ms (a write that waited
 * on a reader took seconds; this leaves room for a busy machine).
 */
function expectUsualLatency(before: Timings, after: Timings): void {
  const slower = (Object.keys(before) as Array<keyof Timings>)
    .filter((kind) => median(after[kind]) > median(before[kind]) * 2 + 20)
    .map((kind) => `${kind}: ${median(before[kind]).toFixed(1)} ms before, ${median(after[kind]).toFixed(1)} ms after`);
  expect(slower).toEqual([]);
}

it("keeps every write's latency and answer while the gateway's NATS user attacks the caches", async () => {
  const before = await writeRounds(10);
  const gateway = await t.nats('gateway');
  const refusals: string[] = [];
  const tryIt = async (subject: string, payload: string) => {
    await gateway.request(subject, payload, { timeout: 500 }).catch((err: { code?: string }) => {
      if (err.code === 'PERMISSIONS_VIOLATION') refusals.push(subject);
    });
  };
  // One byte on the lease subject of old, rewriting a cache stream, a push consumer delivering to a service's subject.
  await tryIt('cache.billing.lease.X', 'x');
  await tryIt(
    '$JS.API.STREAM.UPDATE.BILLING_CACHE',
    JSON.stringify({
      name: 'BILLING_CACHE',
      subjects: ['cache.billing.v.>', 'billing.bill.get', '_INBOX_hospital.>'],
    }),
  );
  await tryIt(
    '$JS.API.CONSUMER.CREATE.BILLING_CACHE.push',
    JSON.stringify({
      stream_name: 'BILLING_CACHE',
      config: {
        durable_name: 'push',
        deliver_subject: 'billing.bill.cancel',
        ack_policy: AckPolicy.None,
        deliver_policy: DeliverPolicy.All,
      },
    }),
  );
  for (const service of SERVICE_NAMES) {
    // It may store check marks (in a cluster, to find a current replica), which change no version; it marks no scope.
    await gateway.publish(cacheSubjectsOf(service).check, 'x', { headers: forgedSequence() });
    await tryIt(cacheSubjectsOf(service).version('sessions'), 'x');
  }
  expect(refusals).toHaveLength(3 + SERVICE_NAMES.length);
  const after = await writeRounds(10);
  expectUsualLatency(before, after);
  // The stream is as provisioning made it.
  const stream = await (await (await t.nats('provisioner')).jetstreamManager()).streams.info('BILLING_CACHE');
  expect(stream.config.subjects).toEqual(['cache.billing.v.>', 'cache.billing.check']);
  expect(stream.config.sealed).toBeFalsy();
}, 120_000);

it('keeps writes and reads exact while a service user and the gateway store garbage on a cache stream, and counts forgeries', async () => {
  const billing = (await t.nats('billing')).jetstream();
  const gateway = (await t.nats('gateway')).jetstream();
  const mark = (scope: string, data: string, forged?: MsgHdrs) =>
    billing.publish(cacheSubjectsOf('billing').version(scope), data, forged ? { headers: forged } : {});
  const refusedAsTooLarge: string[] = [];
  let flooding = true;
  let attacking = false;
  const flood = (async () => {
    while (flooding) {
      // Empty marks, and marks under forged sequence headers: a reader that believed them could match an old version.
      for (const scope of attacking ? ['bills:store:1', 'refs:user', 'refs:store'] : []) {
        await mark(scope, '');
        await mark(scope, 'x', forgedSequence());
      }
      // The gateway's check marks (what it may store): forged, and too large for the stream.
      if (attacking) {
        await gateway.publish(cacheSubjectsOf('billing').check, 'x', { headers: forgedSequence() });
        await gateway
          .publish(cacheSubjectsOf('billing').check, 'x'.repeat(100_000))
          .catch((err: Error) => refusedAsTooLarge.push(err.message));
      }
      await sleep(100);
    }
  })();
  // A round without the attack, then one under it, in turn: a machine busy with other tests slows both alike.
  const before: Timings = { bill: [], payment: [], charge: [], session: [] };
  const after: Timings = { bill: [], payment: [], charge: [], session: [] };
  const add = (into: Timings, more: Timings) => {
    for (const kind of Object.keys(into) as Array<keyof Timings>) into[kind].push(...more[kind]);
  };
  for (let i = 0; i < 10; i++) {
    attacking = false;
    add(before, await writeRounds(1));
    attacking = true;
    await sleep(150);
    add(after, await writeRounds(1));
  }
  flooding = false;
  await flood;
  expectUsualLatency(before, after);
  expect(refusedAsTooLarge.length).toBeGreaterThan(0);
  expect(refusedAsTooLarge[0]).toMatch(/message size exceeds maximum/i);
  // A list, then a mark of its branch with forged headers, until the gateway and billing have each counted one: the
  // gateway reads the marks of a list it keeps, and under load a slow version read may leave it keeping nothing, or
  // skipping its cache for a second.
  const list = () => t.get('/lab_bills?store_id=1');
  const kept = await list();
  const dropped = (process: ManagedProcess) =>
    counterOf(process, 'clinic_cache_messages_dropped_total', 'cache="billing"', 'reason="forged"');
  const counters = [t.stack.gateway, t.stack.replica('billing')];
  const counted = await Promise.all(counters.map(dropped));
  await eventually(async () => {
    await mark('bills:store:1', 'x', forgedSequence());
    const read = await list();
    expect([read.status, read.body]).toEqual([200, kept.body]);
    const now = await Promise.all(counters.map(dropped));
    return now.every((count, i) => count > counted[i]!) ? true : undefined;
  }, 20_000);
}, 120_000);

it('acknowledges 100 writes through one gateway at their usual latency while the other is paused for 10 s', async () => {
  const charge = (n: number) =>
    t.put(`/hospital_charges/${chargeId}`, {
      charge_name: 'CBC',
      charge_type: 'Lab',
      amount: 2000 + n,
      status: 'Active',
      store_id: 1,
    });
  const usual: number[] = [];
  for (let n = 0; n < 100; n++) expect((await timed(usual, () => charge(n))).status).toBe(200);
  const paused: number[] = [];
  const pausedAt = performance.now();
  try {
    await second.process.pause();
    for (let n = 100; n < 200; n++) expect((await timed(paused, () => charge(n))).status).toBe(200);
  } finally {
    await sleep(Math.max(0, 10_000 - (performance.now() - pausedAt)));
    second.process.signal('SIGCONT');
  }
  // A write that waited on the paused gateway would take the request timeout (5 s); none waits at all.
  expect(median(paused)).toBeLessThanOrEqual(median(usual) * 2 + 20);
  expect(Math.max(...paused)).toBeLessThan(2_000);
  // Back, the paused gateway shows the last price at once.
  const listed = (await t.get('/hospital_charges?store_id=1', { baseUrl: second.url })).body.charges;
  expect(listed.find((c: { id: number }) => c.id === chargeId).amount).toBe(2199);
}, 120_000);
