/** The platform (setup in platform-stack.ts): the gateway's envelope, and NATS's conventions and permissions. */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';

import { headers as natsHeaders, type NatsConnection } from 'nats';
import {
  BillingSubjects,
  CatalogueSubjects,
  EventSubjects,
  HeaderNames,
  refSubject,
  SessionsSubjects,
} from '@clinic/contracts';
import { eventually, failureOf } from './harness';
import { t, asGateway, asHospital } from './platform-stack';

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
