/**
 * The system as an attacker holding one NATS password, or a client sending
 * oversized headers, would try it, against the real nats-server with the
 * generated users and permissions: private replies, verified callers, least
 * privilege on JetStream, the envelope for 414 and 431, two-level health, and
 * the token policy.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { BillingSubjects, NATS_USERS } from '@clinic/contracts';
import { eventually, failureOf, sleep, TEST_JWT_SECRET } from './harness';
import { t, billId, PATIENT, NIC, validBill, natsCall, bearer, subscriptionRefused } from './nats-security-stack';

describe('private replies', () => {
  it("refuses a hospital subscription to _INBOX.> or to the gateway's inbox prefix, which receives nothing while bills are read", async () => {
    const hospital = await t.nats('hospital');
    const received: string[] = [];
    const subs = ['_INBOX.>', '_INBOX_gateway.>'].map((subject) =>
      // An error (the refusal) comes through the callback too, without a message.
      hospital.subscribe(subject, { callback: (err, msg) => !err && received.push(msg.string()) }),
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
