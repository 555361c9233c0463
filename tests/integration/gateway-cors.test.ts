/**
 * CORS as the gateway answers it (cors.ts), in-process over a real NATS
 * server: a listed origin's preflight is answered 204 before the token check,
 * its answers expose what docs/api.md lists, and any other origin, or a
 * gateway with no CORS_ORIGINS, gets no CORS header at all.
 */
import type { FastifyInstance } from 'fastify';
import { AUTH_MESSAGES } from '@clinic/contracts';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../../services/gateway/src/cors';
import { ask, fileGateway, replyWith } from './gateway-harness';

const APP_ORIGIN = 'http://localhost:5173';
const OTHER_APP_ORIGIN = 'https://app.clinic.lk';
const UNLISTED_ORIGIN = 'http://localhost:5174';

const t = fileGateway('gateway-cors', {
  env: { CORS_ORIGINS: `${APP_ORIGIN}, ${OTHER_APP_ORIGIN}` },
  answer: (msg) => replyWith(msg, { status: 200, etag: '"t1"', body: { success: true, charge: { id: 1 } } }),
});
const token = t.token('receptionist');
let noCors: FastifyInstance;

beforeAll(async () => {
  noCors = await t.gateway();
});

const corsHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers)
    .filter((name) => name.startsWith('access-control-'))
    .sort();

const preflight = (gateway: FastifyInstance, url: string, origin: string, method = 'PUT') =>
  ask(gateway, 'OPTIONS', url, {
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type,if-match',
    },
  });

describe('a listed origin', () => {
  it('gets its preflight answered 204, without a token, naming what it may send', async () => {
    for (const [url, origin] of [
      ['/hospital_charges/1', APP_ORIGIN],
      ['/lab_bills', OTHER_APP_ORIGIN],
    ] as const) {
      const res = await preflight(t.app, url, origin);
      expect([res.status, res.body]).toEqual([204, '']);
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': origin,
        'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
        'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
        'access-control-max-age': '600',
      });
      expect(res.headers).not.toHaveProperty('access-control-allow-credentials');
      expect(String(res.headers.vary)).toMatch(/origin/i);
    }
    // A preflight without the method it asks for is answered the same way, not with a 400.
    const bare = await ask(t.app, 'OPTIONS', '/hospital_charges', { headers: { origin: APP_ORIGIN } });
    expect(bare.status).toBe(204);
    expect(t.catalogue.received).toEqual([]);
  });

  it('may read the answer and the headers it needs, a refusal included', async () => {
    const res = await ask(t.app, 'GET', '/hospital_charges/1', { token, headers: { origin: APP_ORIGIN } });
    expect([res.status, res.headers.etag]).toEqual([200, '"t1"']);
    expect(res.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(res.headers['access-control-expose-headers']).toBe(CORS_EXPOSED_HEADERS.join(', '));
    const refused = await ask(t.app, 'GET', '/hospital_charges/1', { headers: { origin: APP_ORIGIN } });
    expect([refused.status, refused.json]).toEqual([
      401,
      { success: false, error: AUTH_MESSAGES.unauthenticated, code: 'AUTHENTICATION_REQUIRED' },
    ]);
    expect(refused.headers['access-control-allow-origin']).toBe(APP_ORIGIN);
  });
});

describe('any other origin', () => {
  it('gets no CORS header on a preflight, which is not answered as one', async () => {
    const res = await preflight(t.app, '/hospital_charges/1', UNLISTED_ORIGIN);
    expect(corsHeaders(res.headers)).toEqual([]);
    expect(res.status).not.toBe(204);
    expect(res.json).toMatchObject({ success: false, code: expect.any(String) });
  });

  it('gets the answer with no CORS header, so that a browser keeps it from the page', async () => {
    const res = await ask(t.app, 'GET', '/hospital_charges/1', { token, headers: { origin: UNLISTED_ORIGIN } });
    expect(res.status).toBe(200);
    expect(corsHeaders(res.headers)).toEqual([]);
  });
});

describe('without CORS_ORIGINS', () => {
  it('no answer carries a CORS header, whatever the origin', async () => {
    const asked = await preflight(noCors, '/hospital_charges/1', APP_ORIGIN);
    expect(corsHeaders(asked.headers)).toEqual([]);
    expect(asked.status).not.toBe(204);
    const res = await ask(noCors, 'GET', '/hospital_charges/1', { token, headers: { origin: APP_ORIGIN } });
    expect(res.status).toBe(200);
    expect(corsHeaders(res.headers)).toEqual([]);
  });
});
