/** The platform (setup in platform-stack.ts): health, tokens and roles, RS256, the API documents, the route table. */
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { headers as natsHeaders } from 'nats';
import { HTTP_ROUTES } from '@clinic/contracts';
import { freePort, ManagedProcess, natsCredentialsEnv, serviceEntry, waitFor } from '@clinic/devstack';
import { failureOf, TEST_JWT_SECRET } from './harness';
import { t, base64url } from './platform-stack';

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

it('lists every route of the route table exactly once', () => {
  const keys = HTTP_ROUTES.map((r) => `${r.method} ${r.url}`);
  expect(new Set(keys).size).toBe(keys.length);
  // The spec's 18, and the bill history, day-end report, receipt and charge history, a bill's
  // payments (2) and refunds, and a day's closing, reading and reopening, the export, and
  // channeling's 13 (bookings and their list, completion, an appointment's read, change and
  // cancellation, its payments (2), refunds and slip, and a session's settlement, its read and reversal).
  // Paper's three: a refund's and a cancellation's credit notes, and the ledger's export.
  // The cash office's 14: a shift's opening, list, read, drop, payout, close, sign-off, handover and
  // acceptance; an approval's request, list, read, approval and decline.
  expect(keys).toHaveLength(59);
});
