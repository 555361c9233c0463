/**
 * CORS through the gateway: a web app on a listed origin (CORS_ORIGINS) may
 * call the API from a browser; any other origin gets no CORS header at all.
 */
import { parseCorsOrigins } from '../../services/gateway/src/cors';
import { branch } from './fixtures';
import { fileStack } from './harness';

const APP_ORIGIN = 'http://localhost:5173';
const OTHER_APP_ORIGIN = 'http://127.0.0.1:8080';
const UNLISTED_ORIGIN = 'http://evil.example';

const t = fileStack({ stores: [branch(1, 'Main')] }, { env: { CORS_ORIGINS: `${APP_ORIGIN}, ${OTHER_APP_ORIGIN}` } });

const corsHeaders = (headers: Headers) =>
  [...headers.keys()].filter((name) => name.startsWith('access-control-')).sort();

function preflight(path: string, origin: string, method: string, requestHeaders: string) {
  return fetch(`${t.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': requestHeaders },
  });
}

describe('CORS', () => {
  it('answers a preflight from a listed origin with 204, before the token check, the 405 check and the body', async () => {
    const res = await preflight('/lab_bills', APP_ORIGIN, 'POST', 'authorization,content-type,idempotency-key');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, DELETE');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase().split(', ')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'if-match', 'if-none-match']),
    );
    // What OpenTelemetry's fetch instrumentation and some HTTP libraries add to every call.
    const traced = await preflight('/lab_bills', APP_ORIGIN, 'GET', 'traceparent,tracestate,baggage,x-requested-with');
    expect(traced.status).toBe(204);
    expect(traced.headers.get('access-control-allow-headers')?.toLowerCase().split(', ')).toEqual(
      expect.arrayContaining(['traceparent', 'tracestate', 'baggage', 'x-requested-with']),
    );
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(res.headers.get('vary')).toMatch(/origin/i);
    // A path with a parameter, and the second listed origin.
    const put = await preflight('/lab_bills/12', OTHER_APP_ORIGIN, 'PUT', 'authorization,content-type,if-match');
    expect(put.status).toBe(204);
    expect(put.headers.get('access-control-allow-origin')).toBe(OTHER_APP_ORIGIN);
  });

  it('lets a listed origin read the answer and the headers it needs: correlation id, ETag, rate limits', async () => {
    const res = await t.get('/hospital_charges?store_id=1', { headers: { origin: APP_ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(res.headers.get('access-control-expose-headers')?.split(', ')).toEqual(
      expect.arrayContaining([
        'x-correlation-id',
        'etag',
        'retry-after',
        'ratelimit-limit',
        'ratelimit-remaining',
        'ratelimit-reset',
      ]),
    );
    // Failures too: a page must be able to read a 401's envelope.
    const refused = await t.get('/hospital_charges?store_id=1', { token: null, headers: { origin: APP_ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
  });

  it('gives an unlisted origin no CORS header at all, on a preflight or a request', async () => {
    const res = await preflight('/lab_bills', UNLISTED_ORIGIN, 'POST', 'authorization,content-type');
    expect(corsHeaders(res.headers)).toEqual([]);
    expect(res.status).not.toBe(204);
    const get = await t.get('/hospital_charges?store_id=1', { headers: { origin: UNLISTED_ORIGIN } });
    expect(get.status).toBe(200);
    expect(corsHeaders(get.headers)).toEqual([]);
    // Same host, another port: another origin.
    const port = await t.get('/hospital_charges?store_id=1', { headers: { origin: 'http://localhost:5174' } });
    expect(corsHeaders(port.headers)).toEqual([]);
  });

  it('keeps the answers without an Origin header as they were: 405 with Allow for another method', async () => {
    const res = await t.request('PATCH', '/lab_bills/1', { notes: 'x' }, { headers: { origin: APP_ORIGIN } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('DELETE, GET, HEAD, PUT');
    const plain = await t.get('/hospital_charges?store_id=1');
    expect(corsHeaders(plain.headers)).toEqual([]);
  });

  it('reads CORS_ORIGINS as exact origins and refuses anything else at start-up', () => {
    expect(parseCorsOrigins(undefined)).toEqual([]);
    expect(parseCorsOrigins(' http://localhost:5173 ,https://app.clinic.lk,')).toEqual([
      'http://localhost:5173',
      'https://app.clinic.lk',
    ]);
    for (const bad of ['localhost:5173', 'http://localhost:5173/', 'https://app.clinic.lk/path', '*', 'ftp://x.lk'])
      expect(() => parseCorsOrigins(bad)).toThrow(/CORS_ORIGINS/);
  });
});
