import { createHmac, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { headers as natsHeaders, type NatsConnection } from 'nats';
import {
  BillingSubjects,
  CatalogueSubjects,
  EventSubjects,
  HeaderNames,
  HTTP_ROUTES,
  refSubject,
  SessionsSubjects,
} from '@clinic/contracts';
import { freePort, ManagedProcess, natsCredentialsEnv, serviceEntry, waitFor } from '@clinic/devstack';
import { DEGRADED, eventually, failureOf, startTestStack, TEST_JWT_SECRET, type TestStack } from './harness';

let t: TestStack;
/** As the gateway (may call services), as the hospital (publishes reference data), as ops (status queries). */
let asGateway: NatsConnection;
let asHospital: NatsConnection;
let asOps: NatsConnection;

beforeAll(async () => {
  t = await startTestStack({ env: { REQUEST_TIMEOUT_MS: '1500' } });
  [asGateway, asHospital, asOps] = await Promise.all([t.nats('gateway'), t.nats('hospital'), t.nats('ops')]);
});
afterAll(async () => {
  await t?.stop();
});

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('health', () => {
  it('answers anyone with the status, and an admin with the gateway, NATS and every service', async () => {
    const res = await t.get('/health', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, status: 'ok' });
    const details = await t.get('/health/details');
    expect(details.status).toBe(200);
    expect(details.body).toMatchObject({
      success: true,
      status: 'ok',
      gateway: 'ok',
      nats: 'ok',
      services: { billing: { status: 'ok' }, catalogue: { status: 'ok' }, sessions: { status: 'ok' } },
    });
  });
});

describe('authentication', () => {
  const protectedPath = '/all_sessions';

  it('rejects a request without a token with 401 in the envelope', async () => {
    const res = await t.get(protectedPath, { token: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'Authentication required.', code: 'AUTHENTICATION_REQUIRED' });
  });

  it('rejects a token signed with another secret', async () => {
    const forged = createSigner({ key: 'not-the-secret', expiresIn: 60_000 })({ sub: 1, role: 'admin' });
    const res = await t.get(protectedPath, { token: forged });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'Invalid token.', code: 'TOKEN_INVALID' });
  });

  it('rejects an expired token', async () => {
    const expired = createSigner({ key: TEST_JWT_SECRET, clockTimestamp: Date.now() - 3_600_000, expiresIn: 60_000 })({
      sub: 1,
      role: 'admin',
    });
    const res = await t.get(protectedPath, { token: expired });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'Token expired.', code: 'TOKEN_EXPIRED' });
  });

  it('rejects an unsigned token (alg none)', async () => {
    const exp = Math.floor(Date.now() / 1000) + 600;
    const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 1, role: 'admin', exp })}.`;
    const res = await t.get(protectedPath, { token: unsigned });
    expect(res.status).toBe(401);
    expect(res.body.success).toBe(false);
  });

  it('rejects a malformed token and a token without a role', async () => {
    const malformed = await t.get(protectedPath, { token: 'not.a.jwt' });
    expect(malformed.status).toBe(401);
    expect(malformed.body).toEqual({ success: false, error: 'Invalid token.', code: 'TOKEN_INVALID' });

    const noRole = createSigner({ key: TEST_JWT_SECRET, expiresIn: 60_000 })({ sub: 1 });
    const res = await t.get(protectedPath, { token: noRole });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(failureOf('Invalid token: the sub and role claims are required.'));
  });

  it('rejects a token without an expiry', async () => {
    const forever = createSigner({ key: TEST_JWT_SECRET })({ sub: 1, role: 'admin' });
    const res = await t.get(protectedPath, { token: forever });
    expect(res.status).toBe(401);
  });

  it('answers 403 in the envelope when the role may not use the route', async () => {
    const res = await t.del('/lab_bills/1', { role: 'cashier' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(failureOf('You do not have permission to perform this action.'));
    const unknownRole = await t.get('/hospital_charges?store_id=1', { role: 'doctor' });
    expect(unknownRole.status).toBe(403);
  });
});

describe('RS256', () => {
  it('verifies tokens against JWT_PUBLIC_KEY, in the gateway and in the service, and refuses HS256 ones', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    // The service checks the forwarded token with the same key: sessions runs on RS256 for this test.
    const hs256Sessions = t.stack.replica('sessions');
    await hs256Sessions.stop();
    const rs256Sessions = await t.stack.addReplica('sessions', { JWT_PUBLIC_KEY: publicPem, JWT_SECRET: '' });
    const port = await freePort();
    const gateway = new ManagedProcess({
      name: 'gateway-rs256',
      command: process.execPath,
      args: [serviceEntry('gateway')],
      env: {
        NATS_URL: t.stack.infra.natsUrl,
        ...natsCredentialsEnv('gateway', t.stack.infra.natsPasswords),
        PORT: String(port),
        HOST: '127.0.0.1',
        JWT_PUBLIC_KEY: publicPem,
        JWT_SECRET: '',
      },
      output: { kind: 'file', path: join(t.stack.logDir, 'gateway-rs256.log') },
    });
    gateway.start();
    try {
      await waitFor(
        'the RS256 gateway and sessions',
        async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok,
        30_000,
      );
      const sign = (key: string | Buffer, algorithm: 'RS256' | 'HS256') =>
        createSigner({ key, algorithm, expiresIn: 60_000 })({ sub: 3, role: 'admin' });
      const call = (token: string) =>
        fetch(`http://127.0.0.1:${port}/all_sessions`, { headers: { authorization: `Bearer ${token}` } });
      expect((await call(sign(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256'))).status).toBe(
        200,
      );
      expect((await call(sign(TEST_JWT_SECRET, 'HS256'))).status).toBe(401);
      // An algorithm swap: HS256 with the public key (which anyone may hold) as its secret, at the gateway and in
      // the service (sessions over NATS).
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: 3, role: 'admin', exp: Math.floor(Date.now() / 1000) + 60 })}`;
      const swapped = `${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`;
      expect((await call(swapped)).status).toBe(401);
      const h = natsHeaders();
      h.set('authorization', `Bearer ${swapped}`);
      const direct = await (await t.nats('hospital')).request('sessions.session.list', '{}', {
        timeout: 3000,
        headers: h,
      });
      expect(direct.json()).toMatchObject({ status: 401, body: { success: false, error: 'Invalid token.' } });
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      expect((await call(sign(other, 'RS256'))).status).toBe(401);
      // The catalogue still runs on HS256: it refuses the RS256 token the gateway let through.
      const rs256 = sign(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256');
      const charges = await fetch(`http://127.0.0.1:${port}/hospital_charges?store_id=1`, {
        headers: { authorization: `Bearer ${rs256}` },
      });
      expect({ status: charges.status, body: await charges.json() }).toEqual({
        status: 401,
        body: { success: false, error: 'Invalid token.', code: 'TOKEN_INVALID' },
      });
    } finally {
      await gateway.stop();
      await rs256Sessions.stop();
      t.stack.services.set('sessions', [hs256Sessions]);
      hs256Sessions.start();
      await t.stack.waitHealthy(30_000);
    }
  });
});

describe('gateway envelope', () => {
  it('answers an unknown route with 404 in the envelope', async () => {
    const res = await t.get('/no_such_route');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Route not found.', code: 'ROUTE_NOT_FOUND' });
  });

  it('answers a known path asked with another method with 405 and Allow', async () => {
    const res = await t.request('PATCH', '/lab_bills/1', { payment_status: 'Paid' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT');
    expect(res.body).toEqual(failureOf('Method not allowed for this route.'));
    // fetch refuses TRACE, so plain http.
    const trace = await new Promise<{ status?: number; allow?: string }>((resolve, reject) => {
      request(`${t.url}/hospital_charges`, { method: 'TRACE' }, (res) => {
        res.resume();
        resolve({ status: res.statusCode, allow: res.headers.allow });
      })
        .on('error', reject)
        .end();
    });
    expect(trace).toEqual({ status: 405, allow: 'GET, HEAD, POST' });
    // A static path is not taken for a parameter: /lab_bills/summary is GET only.
    const summary = await t.put('/lab_bills/summary', { notes: 'x' });
    expect(summary.status).toBe(405);
    expect(summary.headers.get('allow')).toBe('GET, HEAD');
  });

  /** A request written as given on a socket of its own: the status line and the body of the answer. */
  const rawRequest = (text: string) =>
    new Promise<{ statusLine: string; body: string }>((resolve, reject) => {
      // Written, not ended: the server closes the connection once it has answered (HTTP/1.0, or `connection: close`).
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => socket.write(text));
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head = '', body = ''] = answer.split('\r\n\r\n');
        resolve({ statusLine: head.split('\r\n')[0] ?? '', body });
      });
    });

  it('answers an HTTP/1.1 request without a Host header with 400 in the envelope', async () => {
    const answer = await rawRequest('GET /health HTTP/1.1\r\nconnection: close\r\n\r\n');
    expect(answer.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(answer.body)).toEqual(failureOf('A Host header is required (HTTP/1.1).'));
    // HTTP/1.0 has no Host header to require.
    const old = await rawRequest('GET /health HTTP/1.0\r\n\r\n');
    expect(old.statusLine).toBe('HTTP/1.1 200 OK');
  });

  it('answers a path that climbs out of the documentation with 404 in the envelope, not a body error', async () => {
    for (const path of ['/docs/static/../..', '/docs/static/../../lab_bills', '/docs/static/%2e%2e/%2e%2e/x']) {
      const answer = await rawRequest(`GET ${path} HTTP/1.1\r\nhost: clinic\r\nconnection: close\r\n\r\n`);
      expect({ path, status: answer.statusLine }).toEqual({ path, status: 'HTTP/1.1 404 Not Found' });
      expect(JSON.parse(answer.body)).toEqual({ success: false, error: 'Route not found.', code: 'ROUTE_NOT_FOUND' });
    }
  });

  it('answers a body that is not JSON with 400 in the envelope', async () => {
    const res = await t.post('/hospital_charges', undefined, {
      rawBody: '{"charge_name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Request body must be valid JSON.', code: 'INVALID_JSON' });
    const text = await t.post('/hospital_charges', undefined, {
      rawBody: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(400);
    expect(text.body.success).toBe(false);
  });

  it('rejects prototype-poisoning keys', async () => {
    const res = await t.post('/hospital_charges', undefined, {
      rawBody: '{"charge_name":"x","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(failureOf('Request body must not contain __proto__ or constructor.prototype keys.'));
  });

  it('answers an oversized body with 413 in the envelope', async () => {
    const res = await t.post('/hospital_charges', { charge_name: 'x'.repeat(10 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, error: 'Request body is too large.', code: 'BODY_TOO_LARGE' });
  });

  it('echoes the correlation id and carries it to the service log', async () => {
    const res = await t.get('/all_sessions', { headers: { [HeaderNames.correlationId]: 'e2e-correlation-42' } });
    expect(res.headers.get(HeaderNames.correlationId)).toBe('e2e-correlation-42');
    const generated = await t.get('/all_sessions');
    expect(generated.headers.get(HeaderNames.correlationId)).toMatch(/^[0-9a-f-]{36}$/);
    // Each process writes its line just after answering: wait for it.
    const linesWith = (file: string) =>
      readFileSync(`${t.stack.logDir}/${file}`, 'utf8')
        .split('\n')
        .filter((line) => line.includes('e2e-correlation-42'))
        .map((line) => JSON.parse(line));
    const serviceLog = await eventually(async () =>
      linesWith('sessions-1.log').length > 0 ? linesWith('sessions-1.log') : undefined,
    );
    expect(serviceLog).toEqual([
      expect.objectContaining({
        correlation_id: 'e2e-correlation-42',
        subject: SessionsSubjects.list,
        msg: 'request handled',
      }),
    ]);
    const gatewayLog = await eventually(async () =>
      linesWith('gateway.log').length > 0 ? linesWith('gateway.log') : undefined,
    );
    expect(gatewayLog).toEqual([expect.objectContaining({ correlation_id: 'e2e-correlation-42', status: 200 })]);
  });
});

describe('API documentation', () => {
  it('documents every route in OpenAPI 3 and serves Swagger UI', async () => {
    const doc = await t.get('/docs/json', { token: null });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    for (const route of HTTP_ROUTES) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      expect(doc.body.paths[path]?.[route.method.toLowerCase()]).toBeDefined();
    }
    const ui = await fetch(`${t.url}/docs/`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger');
  });
});

describe('NATS conventions', () => {
  const request = async (subject: string, payload: string, caller?: { sub: string; role: string }) => {
    const h = natsHeaders();
    h.set(HeaderNames.correlationId, 'raw-nats');
    if (caller) h.set(HeaderNames.authorization, `Bearer ${t.token(caller.role, caller.sub)}`);
    const msg = await asGateway.request(subject, payload, { timeout: 3000, headers: h });
    return JSON.parse(new TextDecoder().decode(msg.data));
  };

  it('answers a request without a token with 401 in the envelope', async () => {
    expect(await request(BillingSubjects.list, '{"query":{"store_id":"1"}}')).toEqual({
      status: 401,
      body: { success: false, error: 'Authentication required.', code: 'AUTHENTICATION_REQUIRED' },
    });
  });

  it('checks the role itself, whoever calls', async () => {
    expect(await request(BillingSubjects.cancel, '{"params":{"bill_id":"1"}}', { sub: '5', role: 'cashier' })).toEqual({
      status: 403,
      body: { success: false, error: 'You do not have permission to perform this action.', code: 'FORBIDDEN' },
    });
  });

  it('refuses a body nested too deep with 400, as the gateway does, storing nothing', async () => {
    const before = (await t.get('/hospital_charges?store_id=1')).body.count;
    const deep = `{"body":{"charge_name":"Deep","charge_type":"Lab","amount":1,"store_id":1,"notes":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    expect(await request(CatalogueSubjects.create, deep, { sub: '5', role: 'admin' })).toEqual({
      status: 400,
      body: { success: false, error: 'Request body is nested more than 32 levels deep.', code: 'BODY_TOO_DEEP' },
    });
    expect((await t.get('/hospital_charges?store_id=1')).body.count).toBe(before);
  });

  it('answers a malformed envelope with 400', async () => {
    const reply = await request(SessionsSubjects.list, 'not json', { sub: '5', role: 'admin' });
    expect(reply).toEqual({
      status: 400,
      body: { success: false, error: 'Request is not valid JSON.', code: 'INVALID_JSON' },
    });
    const wrongShape = await request(SessionsSubjects.list, '{"query":{"store_id":{"$gt":""}}}', {
      sub: '5',
      role: 'admin',
    });
    expect(wrongShape.status).toBe(400);
  });
});

describe('NATS permissions', () => {
  const refused = (request: Promise<unknown>) =>
    expect(request).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
  const subscriptionRefused = async (nc: NatsConnection, subject: string) => {
    const sub = nc.subscribe(subject);
    await Promise.race([sub.closed, new Promise((resolve) => setTimeout(resolve, 3000))]);
    expect(sub.isClosed()).toBe(true);
  };

  it('lets the gateway call the routed subjects only', async () => {
    await refused(asGateway.request(refSubject('store'), '{}', { timeout: 2000 }));
    await refused(asGateway.request(BillingSubjects.refStatus, '{}', { timeout: 2000 }));
    await refused(asGateway.request(EventSubjects.billCreated, '{}', { timeout: 2000 }));
    await refused(asGateway.request(CatalogueSubjects.check, '{}', { timeout: 2000 }));
    await refused(asGateway.request('$JS.API.STREAM.DELETE.BILLING_EVENTS', '', { timeout: 2000 }));
    // It cannot join a service's queue group and take its requests.
    await subscriptionRefused(asGateway, BillingSubjects.create);
  });

  it('lets hospital systems publish reference records, read events and call the routed operations with a token, nothing more', async () => {
    const ack = await asHospital.jetstream().publish(refSubject('user'), JSON.stringify({ id: 900, name: 'Allowed' }));
    expect(ack.seq).toBeGreaterThan(0);
    // A routed operation is theirs to call, but only with a user's token.
    const reply = await asHospital.request(BillingSubjects.create, '{}', { timeout: 2000 });
    expect(JSON.parse(new TextDecoder().decode(reply.data))).toEqual({
      status: 401,
      body: { success: false, error: 'Authentication required.', code: 'AUTHENTICATION_REQUIRED' },
    });
    await refused(asHospital.request(CatalogueSubjects.check, '{}', { timeout: 2000 }));
    await refused(asHospital.request(BillingSubjects.health, '{}', { timeout: 2000 }));
    await refused(asHospital.request(EventSubjects.chargeCreated, '{}', { timeout: 2000 }));
    await refused(asHospital.request('$JS.API.STREAM.DELETE.BILLING_EVENTS', '', { timeout: 2000 }));
    await refused(asHospital.request('$JS.API.CONSUMER.DELETE.HOSPITAL_REF.billing-ref', '', { timeout: 2000 }));
    await subscriptionRefused(asHospital, SessionsSubjects.list);
  });

  it('keeps each service to its own subjects and events', async () => {
    const asBilling = await t.nats('billing');
    await refused(asBilling.request(EventSubjects.chargeCreated, '{}', { timeout: 2000 }));
    await refused(asBilling.request(refSubject('store'), '{}', { timeout: 2000 }));
    await subscriptionRefused(asBilling, CatalogueSubjects.create);
  });
});

describe('reference data', () => {
  it('seeds records and waits until the services applied them', async () => {
    const result = await t.seed({
      stores: [{ id: 1, name: 'Main', status: 'active' }],
      users: [{ id: 1, name: 'Admin' }],
    });
    expect(result.published).toBe(2);
    const h = natsHeaders();
    const msg = await asOps.request(BillingSubjects.refStatus, '{}', { timeout: 2000, headers: h });
    const status = JSON.parse(new TextDecoder().decode(msg.data));
    expect(status.body.applied_seq).toBeGreaterThanOrEqual(result.lastSeq);
  });

  it('makes a seeded record visible to the service that consumes it', async () => {
    await t.seed({
      stores: [{ id: 5, name: 'Galle', status: 'active' }],
      doctors: [
        {
          id: 50,
          name: 'Dr. Seeded',
          reg_no: 'R50',
          specialization: 'ENT',
          channeling_fee: 1500,
          status: 'Active',
          store_id: 5,
          schedule: [],
        },
      ],
    });
    const res = await t.post('/add_session', {
      doctor_id: 50,
      session_date: '2099-01-05',
      session_no: 1,
      start_time: '09:00',
      end_time: '10:00',
    });
    expect(res.status).toBe(201);
    const { session } = (await t.get(`/get_session/${res.body.session_id}`)).body;
    expect(session).toMatchObject({
      doctor_name: 'Dr. Seeded',
      store_name: 'Galle',
      store_id: 5,
      channeling_fee: 1500,
    });
  });

  it('lets a service stopped while records are published catch up after its restart', async () => {
    const sessions = t.stack.replica('sessions');
    await sessions.stop();
    const js = asHospital.jetstream();
    const doctor = {
      id: 51,
      name: 'Dr. While Down',
      reg_no: 'R51',
      specialization: 'ENT',
      channeling_fee: 900,
      status: 'Active',
      store_id: 5,
      schedule: [{ day: 'Monday', session_no: 1, start_time: '08:00', end_time: '09:00', max_patients: null }],
    };
    await js.publish(refSubject('doctor'), JSON.stringify(doctor));
    await js.publish(refSubject('store'), JSON.stringify({ id: 5, name: 'Galle Fort', status: 'active' }));
    const last = await js.publish(refSubject('doctor'), JSON.stringify({ ...doctor, channeling_fee: 950 }));
    sessions.start();
    await t.stack.waitHealthy(30_000);
    const preview = await eventually(async () => {
      const r = await t.get('/preview_auto_sessions?doctor_id=51&month=2099-02');
      return r.body.preview?.length > 0 ? r.body : undefined;
    });
    expect(preview.preview[0]).toMatchObject({ doctor_name: 'Dr. While Down', channeling_fee: 950 });
    const status = JSON.parse(
      new TextDecoder().decode((await asOps.request(SessionsSubjects.refStatus, '{}', { timeout: 2000 })).data),
    );
    expect(status.body.applied_seq).toBeGreaterThanOrEqual(last.seq);
    const created = await t.post('/add_session', {
      doctor_id: 51,
      session_date: '2099-02-02',
      session_no: 1,
      start_time: '08:00',
      end_time: '09:00',
    });
    expect((await t.get(`/get_session/${created.body.session_id}`)).body.session.store_name).toBe('Galle Fort');
  });

  it('rejects an invalid seed file with the offending record', async () => {
    await expect(t.seed({ stores: [{ id: 'x', name: 'Bad' }] })).rejects.toThrow(/stores\[0\]/);
    await expect(t.seed({ rooms: [] })).rejects.toThrow(/Unknown key/);
  });
});

describe('restarts', () => {
  it('restarts every service on its existing data (indexes, streams and consumers already there)', async () => {
    await t.seed({ stores: [{ id: 9, name: 'Restart', status: 'active' }] });
    const charge = await t.post('/hospital_charges', {
      store_id: 9,
      charge_name: 'X-ray',
      charge_type: 'General',
      amount: 10,
    });
    const bill = {
      patient_name: 'P',
      patient_contact: 'C',
      bill_date: '2090-01-01',
      payment_method: 'Card',
      store_id: 9,
      items: [{ charge_id: charge.body.charge_id, charge_name: 'X-ray', unit_price: 10, qty: 1 }],
    };
    expect((await t.post('/lab_bills', bill)).status).toBe(201);
    for (const name of ['catalogue', 'billing', 'sessions'] as const) {
      const replica = t.stack.replica(name);
      await replica.stop();
      replica.start();
    }
    await t.stack.waitHealthy(30_000);
    const again = await t.post('/lab_bills', bill);
    expect(again.status).toBe(201);
    expect(again.body.bill_number).toBe('LB-20900101-0002');
  });
});

describe('service outages', () => {
  it('answers 503 in the envelope when no instance of the service runs, and recovers', async () => {
    const sessions = t.stack.replica('sessions');
    await sessions.stop();
    const res = await t.get('/all_sessions');
    expect(res.status).toBe(503);
    expect(res.body).toEqual(failureOf('Service unavailable. Please retry.'));
    const health = await t.get('/health', { token: null });
    expect(health.status).toBe(503);
    expect(health.body).toEqual(DEGRADED);
    const details = await t.get('/health/details');
    expect(details.status).toBe(503);
    expect(details.body).toMatchObject({
      success: false,
      nats: 'ok',
      services: { sessions: { status: 'down' }, billing: { status: 'ok' } },
    });
    sessions.start();
    await t.stack.waitHealthy(30_000);
    expect((await t.get('/all_sessions')).status).toBe(200);
  });

  it('answers 504 in the envelope when the service does not answer in time', async () => {
    const sessions = t.stack.replica('sessions');
    sessions.signal('SIGSTOP');
    try {
      const started = Date.now();
      const res = await t.get('/all_sessions');
      expect(res.status).toBe(504);
      expect(res.body).toEqual(failureOf('The service did not answer in time. Please retry.'));
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      sessions.signal('SIGCONT');
    }
    await t.stack.waitHealthy(30_000);
  });
});

it('lists every route of the route table exactly once', () => {
  const keys = HTTP_ROUTES.map((r) => `${r.method} ${r.url}`);
  expect(new Set(keys).size).toBe(keys.length);
  // The spec's 18, and the bill history, day-end report, receipt and charge history (issue 15), a bill's
  // payments (2) and refunds, and a day's closing, reading and reopening (issue 25), and the export (issue 28).
  expect(keys).toHaveLength(29);
});
