/**
 * Rate limits at the gateway (@fastify/rate-limit), turned on by this test's
 * settings (they are off unless RATE_LIMIT_MAX is set): per caller for reads,
 * a separate and stricter limit for writes, per IP address without a token.
 */
import { rateLimitConfig } from '../../services/gateway/src/config';
import { branch } from './fixtures';
import { startTestStack, type ApiResponse, type TestStack } from './harness';

let t: TestStack;
const READS = 5;
const WRITES = 2;
const ANONYMOUS = 3;

beforeAll(async () => {
  t = await startTestStack({
    env: {
      RATE_LIMIT_MAX: String(READS),
      RATE_LIMIT_WRITE_MAX: String(WRITES),
      RATE_LIMIT_IP_MAX: String(ANONYMOUS),
      RATE_LIMIT_WINDOW_MS: '120000',
    },
  });
  await t.seed({ stores: [branch(1, 'Main')] });
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

function expectLimited(res: ApiResponse, limit: number): void {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    success: false,
    error: expect.stringMatching(/^Too many requests\. Retry in \d+ (minute|minutes|seconds?)\.$/),
    code: 'RATE_LIMITED',
  });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(120);
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(Number(res.headers.get('ratelimit-reset'))).toBe(retryAfter);
}

it('is off unless RATE_LIMIT_MAX is set; writes default to a quarter of it, requests without a token to all of it', () => {
  const saved = { ...process.env };
  try {
    for (const name of ['RATE_LIMIT_MAX', 'RATE_LIMIT_WRITE_MAX', 'RATE_LIMIT_IP_MAX', 'RATE_LIMIT_WINDOW_MS'])
      delete process.env[name];
    expect(rateLimitConfig()).toEqual({ windowMs: 60_000, max: 0, writeMax: 1, ipMax: 0 });
    process.env.RATE_LIMIT_MAX = '600';
    expect(rateLimitConfig()).toEqual({ windowMs: 60_000, max: 600, writeMax: 150, ipMax: 600 });
  } finally {
    process.env = saved;
  }
});

it('limits reads per caller: 429 in the envelope with Retry-After and RateLimit-* headers; other callers unaffected', async () => {
  const sub = 101;
  for (let i = 1; i <= READS; i++) {
    const res = await t.get('/hospital_charges?store_id=1', { sub });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe(String(READS));
    expect(res.headers.get('ratelimit-remaining')).toBe(String(READS - i));
  }
  expectLimited(await t.get('/hospital_charges?store_id=1', { sub }), READS);
  expectLimited(await t.get('/all_sessions', { sub }), READS);
  // The same caller with another token and role is the same caller; another caller is not limited.
  expectLimited(await t.get('/all_sessions', { sub, role: 'receptionist' }), READS);
  expect((await t.get('/hospital_charges?store_id=1', { sub: 102 })).status).toBe(200);
  // A string sub is another caller than the integer with the same digits.
  expect((await t.get('/hospital_charges?store_id=1', { sub: String(sub) })).status).toBe(200);
});

it('limits writes separately and more strictly; a refused write changes nothing', async () => {
  const sub = 201;
  const create = (name: string) =>
    t.post('/hospital_charges', { store_id: 1, charge_name: name, charge_type: 'Lab', amount: 100 }, { sub });
  expect((await create('W1')).status).toBe(201);
  expect((await create('W2')).status).toBe(201);
  expectLimited(await create('W3'), WRITES);
  expectLimited(await t.del('/hospital_charges/1', { sub }), WRITES);
  // Reads of the same caller have their own allowance.
  const listed = await t.get('/hospital_charges?store_id=1', { sub });
  expect(listed.status).toBe(200);
  expect(
    listed.body.charges
      .map((c: any) => c.charge_name)
      .filter((n: string) => n.startsWith('W'))
      .sort(),
  ).toEqual(['W1', 'W2']);
});

it('limits requests without a token per IP address, never the health check; a bad token is refused before it is counted', async () => {
  for (let i = 0; i < ANONYMOUS; i++) expect((await t.get('/docs/asyncapi.json', { token: null })).status).toBe(200);
  expectLimited(await t.get('/docs/json', { token: null }), ANONYMOUS);
  for (let i = 0; i < ANONYMOUS + 2; i++) expect((await t.get('/health', { token: null })).status).toBe(200);
  for (let i = 0; i < READS + 2; i++)
    expect((await t.get('/hospital_charges?store_id=1', { token: 'not-a-token' })).status).toBe(401);
  expect((await t.get('/hospital_charges?store_id=1', { sub: 301 })).status).toBe(200);
});
