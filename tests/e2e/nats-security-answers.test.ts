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
import { ManagedProcess, natsCredentialsEnv, serviceEntry } from '@clinic/devstack';
import { DEGRADED, failureOf, sleep } from './harness';
import { t, billId } from './nats-security-stack';

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
