/**
 * The system as an attacker holding one NATS password, or a client sending
 * oversized headers, would try it, against the real nats-server with the
 * generated users and permissions: private replies, verified callers, least
 * privilege on JetStream, the envelope for 414 and 431, two-level health, and
 * the token policy.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { AckPolicy, DeliverPolicy, headers as natsHeaders, type NatsConnection } from 'nats';
import { BillingSubjects, EventSubjects, NATS_USERS, requestSubjectsOf, SERVICE_NAMES } from '@clinic/contracts';
import { ManagedProcess, natsCredentialsEnv, serviceEntry } from '@clinic/devstack';
import { DEGRADED, eventually, failureOf, sleep, startTestStack, TEST_JWT_SECRET, type TestStack } from './harness';

let t: TestStack;
let billId: number;
let chargeId: number;
const PATIENT = 'Nimal Private-Patient';
const NIC = 'NIC-PRIVATE-4242';

const decode = (data: Uint8Array) => new TextDecoder().decode(data);

const validBill = () => ({
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
async function natsCall(
  nc: NatsConnection,
  subject: string,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<any> {
  const h = natsHeaders();
  for (const [name, value] of Object.entries(headers)) h.set(name, value);
  return JSON.parse(decode((await nc.request(subject, JSON.stringify(payload), { timeout: 3000, headers: h })).data));
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Subscribes; resolves true once the server has refused (and closed) the subscription. */
async function subscriptionRefused(nc: NatsConnection, subject: string): Promise<boolean> {
  const sub = nc.subscribe(subject);
  await Promise.race([sub.closed, sleep(3000)]);
  return sub.isClosed();
}

const billingLog = () =>
  readFileSync(join(t.stack.logDir, 'billing-1.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

beforeAll(async () => {
  t = await startTestStack();
  await t.seed({ stores: [{ id: 1, name: 'Main', status: 'active' }], patients: [{ id: 1, name: PATIENT }] });
  chargeId = (await t.post('/hospital_charges', { charge_name: 'CBC', charge_type: 'Lab', amount: 850, store_id: 1 }))
    .body.charge_id;
  billId = (await t.post('/lab_bills', validBill())).body.bill_id;
  if (!chargeId || !billId) throw new Error('setup failed');
});
afterAll(async () => {
  await t?.stop();
});

describe('private replies', () => {
  it("refuses a hospital subscription to _INBOX.> or to the gateway's inbox prefix, which receives nothing while bills are read", async () => {
    const hospital = await t.nats('hospital');
    const received: string[] = [];
    const subs = ['_INBOX.>', '_INBOX_gateway.>'].map((subject) =>
      // An error (the refusal) comes through the callback too, without a message.
      hospital.subscribe(subject, { callback: (err, msg) => !err && received.push(decode(msg.data)) }),
    );
    for (let i = 0; i < 3; i++) {
      const res = await t.get(`/lab_bills/${billId}`);
      expect(res.status).toBe(200);
      expect(res.body.bill).toMatchObject({ patient_name: PATIENT, patient_nic: NIC });
    }
    await sleep(300);
    expect(received.filter((text) => text.includes(PATIENT) || text.includes(NIC))).toEqual([]);
    expect(received).toEqual([]);
    await eventually(async () => (subs.every((s) => s.isClosed()) ? true : undefined), 5000);
  });

  it("lets no user subscribe to _INBOX.> or to another user's reply prefix", async () => {
    for (const user of NATS_USERS) {
      const nc = await t.nats(user);
      const subjects = [
        '_INBOX.>',
        '>',
        ...NATS_USERS.filter((other) => other !== user).map((other) => `_INBOX_${other}.>`),
      ];
      const refused = await Promise.all(
        subjects.map(async (subject) => [subject, await subscriptionRefused(nc, subject)] as const),
      );
      expect({ user, allowed: refused.filter(([, r]) => !r).map(([s]) => s) }).toEqual({ user, allowed: [] });
    }
  });
});

describe('verified callers', () => {
  it('answers a forged caller published as the gateway user with 401 and changes nothing', async () => {
    const gateway = await t.nats('gateway');
    const forgedHeaders = { 'x-caller-sub': '999', 'x-caller-role': 'admin' };
    expect(
      await natsCall(gateway, BillingSubjects.cancel, { params: { bill_id: String(billId) } }, forgedHeaders),
    ).toEqual({
      status: 401,
      body: { success: false, error: 'Authentication required.', code: 'AUTHENTICATION_REQUIRED' },
    });
    // A token the gateway never issued (another key) is no better.
    const forged = createSigner({ key: 'a-secret-the-attacker-chose-32-bytes!', expiresIn: 60_000 })({
      sub: 999,
      role: 'admin',
    });
    expect(
      await natsCall(
        gateway,
        BillingSubjects.cancel,
        { params: { bill_id: String(billId) } },
        { ...forgedHeaders, ...bearer(forged) },
      ),
    ).toEqual({
      status: 401,
      body: { success: false, error: 'Invalid token.', code: 'TOKEN_INVALID' },
    });
    const bill = (await t.get(`/lab_bills/${billId}`)).body.bill;
    expect(bill).toMatchObject({ status: 'active', is_deleted: false });
  });

  it("acts over NATS, as another hospital system would, only with a verified token and that token's role", async () => {
    const hospital = await t.nats('hospital');
    const read = await natsCall(
      hospital,
      BillingSubjects.get,
      { params: { bill_id: String(billId) } },
      bearer(t.token('cashier', 31)),
    );
    expect(read).toMatchObject({ status: 200, body: { success: true, bill: { id: billId, patient_name: PATIENT } } });
    const cancel = await natsCall(
      hospital,
      BillingSubjects.cancel,
      { params: { bill_id: String(billId) } },
      bearer(t.token('cashier', 31)),
    );
    expect(cancel).toEqual({
      status: 403,
      body: { success: false, error: 'You do not have permission to perform this action.', code: 'FORBIDDEN' },
    });
    expect(await natsCall(hospital, BillingSubjects.get, { params: { bill_id: String(billId) } })).toEqual({
      status: 401,
      body: { success: false, error: 'Authentication required.', code: 'AUTHENTICATION_REQUIRED' },
    });
    expect((await t.get(`/lab_bills/${billId}`)).body.bill.status).toBe('active');
  });

  it('bounds headers over NATS: a 10 KB idempotency key gets 400 and stores nothing, a 100 KB token 401', async () => {
    const gateway = await t.nats('gateway');
    const total = async () => (await t.get('/lab_bills?store_id=1')).body.total;
    const before = await total();
    const longKey = await natsCall(
      gateway,
      BillingSubjects.create,
      { body: validBill() },
      { ...bearer(t.token()), 'idempotency-key': 'k'.repeat(10 * 1024) },
    );
    expect(longKey).toEqual({
      status: 400,
      body: {
        success: false,
        error: 'Idempotency-Key must be 1 to 100 visible ASCII characters.',
        code: 'IDEMPOTENCY_KEY_INVALID',
      },
    });
    const hugeToken = await natsCall(
      gateway,
      BillingSubjects.create,
      { body: validBill() },
      bearer('a'.repeat(100 * 1024)),
    );
    expect(hugeToken).toEqual({
      status: 401,
      body: { success: false, error: 'Invalid token.', code: 'TOKEN_INVALID' },
    });
    expect(await total()).toBe(before);
  });

  it('refuses, at the gateway and over NATS alike, a token issued in the future or living longer than 24 h', async () => {
    const sign = (claims: Record<string, unknown>, options: Record<string, unknown> = {}) =>
      createSigner({ key: TEST_JWT_SECRET, ...options })({ sub: 1, role: 'admin', ...claims });
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string, string | null]> = [
      [
        'iat 10 minutes ahead',
        sign({}, { clockTimestamp: Date.now() + 600_000, expiresIn: 3_600_000 }),
        'Invalid token: issued in the future.',
      ],
      [
        'exp in the year 3,000,000',
        sign({ exp: Math.floor((3_000_000 - 1970) * 365.2425 * 86400) }),
        'Invalid token: it expires further ahead than the longest lifetime allowed.',
      ],
      [
        'exp 25 h ahead',
        sign({ exp: now + 25 * 3600 }, { noTimestamp: true }),
        'Invalid token: it expires further ahead than the longest lifetime allowed.',
      ],
      [
        'issued 2 h ago for 25 h',
        sign({ iat: now - 7200, exp: now + 23 * 3600 }),
        'Invalid token: it expires further ahead than the longest lifetime allowed.',
      ],
      ['a 23 h token', sign({ exp: now + 23 * 3600 }), null],
    ];
    const gateway = await t.nats('gateway');
    for (const [name, token, error] of cases) {
      const http = await t.get(`/lab_bills/${billId}`, { token });
      const nats = await natsCall(gateway, BillingSubjects.get, { params: { bill_id: String(billId) } }, bearer(token));
      const expected = error
        ? { status: 401, body: failureOf(error) }
        : { status: 200, body: expect.objectContaining({ success: true }) };
      expect({ name, http: { status: http.status, body: http.body } }).toEqual({ name, http: expected });
      // A record's read carries its ETag over NATS.
      expect({ name, nats }).toEqual({ name, nats: error ? expected : { ...expected, etag: expect.any(String) } });
    }
  });

  it("has billing ask the catalogue with its caller's token", async () => {
    const created = await t.post('/lab_bills', validBill(), { role: 'cashier', sub: 4242 });
    expect(created.status).toBe(201);
    const checks = await eventually(async () => {
      const lines = readFileSync(join(t.stack.logDir, 'catalogue-1.log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('catalogue.charge.check'));
      const mine = lines.map((l) => JSON.parse(l)).filter((l) => l.caller_sub === 4242);
      return mine.length > 0 ? mine : undefined;
    });
    expect(checks[0]).toMatchObject({ caller_role: 'cashier', status: 200 });
  });
});

describe('least privilege on JetStream', () => {
  const redirect = {
    durable_name: 'redirect',
    deliver_subject: BillingSubjects.list,
    deliver_group: 'billing',
    ack_policy: AckPolicy.None,
    deliver_policy: DeliverPolicy.All,
  };

  it('refuses the consumer redirection: hospital cannot create a consumer on BILLING_EVENTS delivering to billing.bill.list', async () => {
    const hospital = await t.nats('hospital');
    const jsm = await hospital.jetstreamManager({ checkAPI: false });
    await expect(jsm.consumers.add('BILLING_EVENTS', redirect)).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
    // The older API subjects and an ephemeral consumer are no way around it.
    for (const subject of [
      '$JS.API.CONSUMER.DURABLE.CREATE.BILLING_EVENTS.redirect',
      '$JS.API.CONSUMER.CREATE.BILLING_EVENTS',
    ]) {
      const request = JSON.stringify({ stream_name: 'BILLING_EVENTS', config: redirect });
      await expect(hospital.request(subject, request, { timeout: 2000 })).rejects.toMatchObject({
        code: 'PERMISSIONS_VIOLATION',
      });
    }
    await expect(jsm.consumers.info('BILLING_EVENTS', 'redirect')).rejects.toThrow(/not found/i);
  });

  it('never runs a JetStream delivery as a request: a pull whose reply subject is billing.bill.list is ignored', async () => {
    const hospital = await t.nats('hospital');
    const handledLists = () =>
      billingLog().filter((l) => l.subject === BillingSubjects.list && l.msg === 'request handled').length;
    const before = handledLists();
    // The hospital's own pull consumer, with a service subject as the reply subject of the pull.
    hospital.publish(
      '$JS.API.CONSUMER.MSG.NEXT.BILLING_EVENTS.hospital',
      JSON.stringify({ batch: 1, expires: 2_000_000_000 }),
      {
        reply: BillingSubjects.list,
      },
    );
    const ignored = await eventually(async () => {
      const lines = billingLog().filter((l) => /JetStream delivery ignored/.test(l.msg));
      return lines.length > 0 ? lines : undefined;
    });
    expect(ignored[0]).toMatchObject({ subject: BillingSubjects.list, delivered_subject: EventSubjects.billCreated });
    expect(handledLists()).toBe(before);
  });

  it('lets hospital read events only by fetching from its provisioned pull consumer', async () => {
    const hospital = await t.nats('hospital');
    const consumer = await hospital.jetstream().consumers.get('BILLING_EVENTS', 'hospital');
    expect((await consumer.info()).config.deliver_subject).toBeUndefined();
    const batch = await consumer.fetch({ max_messages: 10, expires: 2000 });
    const subjects: string[] = [];
    for await (const m of batch) {
      subjects.push(m.subject);
      m.ack();
    }
    expect(subjects).toContain(EventSubjects.billCreated);
  });

  it("keeps each service to its own stream and consumers: no deleting or purging, no consumer on another's stream", async () => {
    const billing = await t.nats('billing');
    const refusedSubjects = [
      '$JS.API.STREAM.DELETE.CATALOGUE_EVENTS',
      '$JS.API.STREAM.DELETE.BILLING_EVENTS',
      '$JS.API.STREAM.PURGE.BILLING_EVENTS',
      '$JS.API.STREAM.PURGE.HOSPITAL_REF',
      '$JS.API.STREAM.DELETE.HOSPITAL_REF',
      '$JS.API.STREAM.UPDATE.HOSPITAL_REF',
      '$JS.API.CONSUMER.DELETE.HOSPITAL_REF.sessions-ref',
      '$JS.API.CONSUMER.CREATE.HOSPITAL_REF.sessions-ref',
      '$JS.API.CONSUMER.CREATE.CATALOGUE_EVENTS.redirect',
      '$JS.API.CONSUMER.DELETE.BILLING_EVENTS.hospital',
    ];
    for (const subject of refusedSubjects) {
      await expect(billing.request(subject, '{}', { timeout: 2000 }).then(() => subject)).rejects.toMatchObject({
        code: 'PERMISSIONS_VIOLATION',
      });
    }
    const streams = await (await t.nats('hospital')).jetstreamManager({ checkAPI: false });
    expect((await streams.streams.info('CATALOGUE_EVENTS')).config.name).toBe('CATALOGUE_EVENTS');
  });

  it('lets billing create no push consumer: its events cannot be delivered where it may not publish', async () => {
    const billing = await t.nats('billing');
    const jsm = await billing.jetstreamManager({ checkAPI: false });
    const refs = async () => (await jsm.streams.info('HOSPITAL_REF')).state.last_seq;
    const before = await refs();
    // Delivered to hospital.ref.store, the events would be stored on HOSPITAL_REF as reference records.
    const push = {
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
      deliver_subject: 'hospital.ref.store',
    };
    await expect(jsm.consumers.add('BILLING_EVENTS', { ...push, durable_name: 'redirect' })).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
    // The readers' consumer it provisions is a pull consumer, which nats-server does not turn into a push one.
    await expect(jsm.consumers.add('BILLING_EVENTS', { ...push, durable_name: 'hospital' })).rejects.toThrow();
    await sleep(300);
    expect(await refs()).toBe(before);
    expect((await jsm.consumers.info('BILLING_EVENTS', 'hospital')).config.deliver_subject).toBeUndefined();
  });
});

describe('replies go to inboxes only', () => {
  const catalogueEvents = async () =>
    (await (await t.nats('hospital')).jetstreamManager({ checkAPI: false })).streams.info('CATALOGUE_EVENTS');

  it("answers no request whose reply subject is not a user's inbox: no answer is stored as another's event", async () => {
    const hospital = await t.nats('hospital');
    const before = (await catalogueEvents()).state;
    // nats-server lets billing publish its answer to any reply subject (allow_responses ignores the deny lists).
    const h = natsHeaders();
    h.set('authorization', `Bearer ${t.token('cashier', 31)}`);
    hospital.publish(BillingSubjects.list, JSON.stringify({ query: { store_id: '1' } }), {
      reply: 'catalogue.charge.created',
      headers: h,
    });
    // The same request with an inbox of its own is answered: the one before it has been handled by then.
    expect(
      await natsCall(hospital, BillingSubjects.list, { query: { store_id: '1' } }, bearer(t.token('cashier', 31))),
    ).toMatchObject({ status: 200 });
    await sleep(300);
    expect((await catalogueEvents()).state).toMatchObject({ messages: before.messages, last_seq: before.last_seq });
    const ignored = billingLog().filter((l) => /reply subject is no user's inbox/.test(l.msg));
    expect(ignored.at(-1)).toMatchObject({ subject: BillingSubjects.list, reply: 'catalogue.charge.created' });
  });
});

describe('queue groups', () => {
  it('lets a service take its requests in its own queue group only, never all of them beside its replicas', async () => {
    const billing = await t.nats('billing');
    const refusedWithout = await subscriptionRefused(billing, BillingSubjects.list);
    const other = billing.subscribe(BillingSubjects.list, { queue: 'eavesdroppers' });
    await Promise.race([other.closed, sleep(3000)]);
    expect({ plain: refusedWithout, otherQueue: other.isClosed() }).toEqual({ plain: true, otherQueue: true });
    // The lists the gateway forwards keep being answered, by billing's own replicas.
    expect((await t.get('/lab_bills?store_id=1')).status).toBe(200);
  });
});

describe('discovery (NATS Services API)', () => {
  /** Every answer of a discovery request, as nats.js's service client gathers them. */
  async function gather<T>(answers: Promise<AsyncIterable<T>>): Promise<T[]> {
    const all: T[] = [];
    for await (const answer of await answers) all.push(answer);
    return all;
  }

  it("lets ops find each service's instance, its endpoints in the service's queue group, and their figures", async () => {
    const client = (await t.nats('ops')).services.client();
    const pings = await gather(client.ping());
    expect(pings.map((p) => p.name).sort()).toEqual([...SERVICE_NAMES].sort());
    expect(pings.find((p) => p.name === 'billing')?.metadata?.instance).toMatch(/-\d+$/);

    const info = (await gather(client.info('billing')))[0]!; // the stack runs one billing instance
    expect(info.endpoints.map((e) => e.subject).sort()).toEqual([...requestSubjectsOf('billing')].sort());
    expect(new Set(info.endpoints.map((e) => e.queue_group))).toEqual(new Set(['billing']));

    const read = await t.get(`/lab_bills/${billId}`);
    expect(read.status).toBe(200);
    const stats = (await gather(client.stats('billing', info.id)))[0]!;
    const get = stats.endpoints?.find((e) => e.subject === BillingSubjects.get);
    expect(get).toMatchObject({ name: 'bill-get', queue_group: 'billing' });
    expect(get!.num_requests).toBeGreaterThanOrEqual(1);
    expect(get!.data).toMatchObject({ answered: get!.num_requests, answered_5xx: 0 });
  });

  it('refuses discovery to every other user, and lets no service answer for another', async () => {
    for (const user of NATS_USERS.filter((u) => u !== 'ops')) {
      const nc = await t.nats(user);
      await expect(nc.request('$SRV.PING', '', { timeout: 2000 }).then(() => user)).rejects.toMatchObject({
        code: 'PERMISSIONS_VIOLATION',
      });
    }
    expect(await subscriptionRefused(await t.nats('billing'), '$SRV.PING.catalogue')).toBe(true);
  });
});

describe('answers in the envelope', () => {
  it('answers a 200-character path id with 414 in the envelope', async () => {
    const res = await t.get(`/lab_bills/${'1'.repeat(200)}`);
    expect(res.status).toBe(414);
    expect(res.body).toEqual({ success: false, error: 'Request path is too long.', code: 'PATH_TOO_LONG' });
  });

  it('answers a 100 KB token with 431 in the envelope', async () => {
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        `${t.url}/lab_bills/${billId}`,
        { headers: { authorization: `Bearer ${'a'.repeat(100 * 1024)}` } },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual(failureOf('Request headers are too large.'));
    // One log line for the request, however much of the header the parser went on refusing.
    const logged = () =>
      readFileSync(join(t.stack.logDir, 'gateway.log'), 'utf8')
        .split('\n')
        .filter((l) => l.includes('refused by the HTTP parser'));
    await sleep(200);
    expect(logged().map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ status: 431, cause: 'HPE_HEADER_OVERFLOW' }),
    ]);
  });
});

describe('health', () => {
  it('tells anyone the status only, and keeps the detailed report (hosts, pids, subjects) for an admin token', async () => {
    const anonymous = await t.get('/health', { token: null });
    expect({ status: anonymous.status, body: anonymous.body }).toEqual({
      status: 200,
      body: { success: true, status: 'ok' },
    });
    expect(await t.get('/health/details', { token: null })).toMatchObject({
      status: 401,
      body: { success: false, error: 'Authentication required.', code: 'AUTHENTICATION_REQUIRED' },
    });
    expect(await t.get('/health/details', { role: 'cashier' })).toMatchObject({
      status: 403,
      body: { success: false, error: 'You do not have permission to perform this action.', code: 'FORBIDDEN' },
    });
    expect((await t.get('/health/details')).body.services.billing.instance).toMatch(/-\d+$/);
  });

  it('reports NATS down while nats-server is dead (a round trip, not the state flag), and recovers', async () => {
    const nats = t.stack.infra.nats!;
    await nats.stop();
    try {
      const anonymous = await t.get('/health', { token: null });
      expect(anonymous.status).toBe(503);
      expect(anonymous.body).toEqual(DEGRADED);
      const details = await t.get('/health/details');
      expect(details.status).toBe(503);
      expect(details.body).toMatchObject({ success: false, nats: 'down' });
    } finally {
      await t.stack.infra.startNats();
    }
    await t.stack.waitHealthy(30_000);
    expect((await t.get('/health/details')).body).toMatchObject({ success: true, nats: 'ok' });
  });
});

describe('token settings at start', () => {
  it.each(['gateway', 'billing'] as const)(
    '%s refuses an HS256 secret shorter than 32 bytes with NODE_ENV=production',
    async (name) => {
      const proc = new ManagedProcess({
        name: `${name}-short-secret`,
        command: process.execPath,
        args: [serviceEntry(name)],
        env: {
          NODE_ENV: 'production',
          JWT_SECRET: 'a',
          NATS_URL: t.stack.infra.natsUrl,
          MONGO_URL: t.stack.infra.mongoUrl,
          ...natsCredentialsEnv(name, t.stack.infra.natsPasswords),
          PORT: '0',
          HOST: '127.0.0.1',
        },
        output: { kind: 'file', path: join(t.stack.logDir, `${name}-short-secret.log`) },
      });
      proc.start();
      try {
        const code = await Promise.race([proc.waitForExit(), sleep(20_000).then(() => 'still running')]);
        expect(code).toBe(1);
        expect(proc.logTail()).toContain('JWT_SECRET must be at least 32 bytes when NODE_ENV=production');
      } finally {
        await proc.stop();
      }
    },
  );
});
