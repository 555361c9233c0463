/**
 * The identity provider's keys as the gateway and the services keep them
 * (libs/service-kit auth/jwks.ts), with a real OpenID Provider
 * (identity-provider-stack.ts) and key sets that age in seconds: a rotated key
 * is taken at its first use; forged `kid`s do not hammer the provider; while
 * the provider is down the last good keys keep verifying, and the outage is
 * logged, counted and shown by /health/details, until the stale limit, past
 * which every token is refused until the provider answers again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { TOKEN_MESSAGES } from '@clinic/contracts';
import { freeListeningPort } from '@clinic/devstack';
import { viaHttp, viaNats } from './branch-transport';
import { eventually, sleep, type TestStack } from './harness';
import {
  AUDIENCE,
  charges,
  chargesOf,
  headerOf,
  identityStack,
  signingKey,
  startProvider,
  type Provider,
} from './identity-provider-stack';

/** The keys' maximum age and stale limit, and one unknown kid's interval, in seconds. */
const MAX_AGE_S = 3;
const STALE_MAX_S = 10;
const KID_INTERVAL_S = 60;

const rsa = signingKey('rsa', 'rsa-1');
const ec = signingKey('ec', 'ec-2');
let port: number;
let provider: Provider;
let t: TestStack;

beforeAll(async () => {
  port = await freeListeningPort();
  provider = await startProvider(port, [rsa.private], 'RS256');
  t = await identityStack(provider, {
    JWT_JWKS_MAX_AGE_S: String(MAX_AGE_S),
    JWT_JWKS_STALE_MAX_S: String(STALE_MAX_S),
    JWT_JWKS_REFRESH_MIN_S: String(KID_INTERVAL_S),
  });
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await provider?.stop();
});

const ok = { status: 200, body: { success: true } };
const invalid = { status: 401, body: { success: false, error: TOKEN_MESSAGES.invalid, code: 'TOKEN_INVALID' } };

it('takes a token of a rotated key at its first use, at the gateway and over NATS, and the old key while published', async () => {
  const before = await provider.token('desk');
  expect(await viaHttp(t, charges, chargesOf(1), before)).toMatchObject(ok);
  await provider.stop();
  provider = await startProvider(port, [ec.private, rsa.private], 'ES256');
  const after = await provider.token('desk');
  expect(headerOf(after)).toMatchObject({ alg: 'ES256', kid: 'ec-2' });
  // No wait and no second try: the first request with the new kid fetches the keys.
  expect(await viaHttp(t, charges, chargesOf(1), after)).toMatchObject(ok);
  expect(await viaNats(await t.nats('hospital'), charges, chargesOf(1), after)).toMatchObject(ok);
  expect(await viaHttp(t, charges, chargesOf(1), before)).toMatchObject(ok);
});

it('refuses forged kids, fetching the keys once for a burst of them and not again for the same kids', async () => {
  const forged = Array.from({ length: 30 }, (_, i) =>
    createSigner({
      key: rsa.pem,
      algorithm: 'RS256',
      kid: `unknown-${i}`,
      iss: provider.issuer,
      aud: AUDIENCE,
      expiresIn: 600_000,
    })({ sub: 'intruder', realm_access: { roles: ['admin'] } }),
  );
  const first = provider.jwksFetches();
  const burst = await Promise.all(forged.map((token) => viaHttp(t, charges, chargesOf(1), token)));
  for (const answer of burst) expect(answer).toEqual(invalid);
  // One fetch for the burst (and at most one more: the keys' age may have asked for one meanwhile).
  expect(provider.jwksFetches() - first).toBeGreaterThanOrEqual(1);
  expect(provider.jwksFetches() - first).toBeLessThanOrEqual(2);
  const second = provider.jwksFetches();
  for (const token of forged) expect(await viaHttp(t, charges, chargesOf(1), token)).toEqual(invalid);
  expect(provider.jwksFetches() - second).toBeLessThanOrEqual(1);
});

/** The gateway's metrics, as Prometheus would scrape them. */
async function gatewayMetrics(): Promise<string> {
  const target = t.stack.metricsTargets().find((target) => target.replica === 'gateway')!;
  return (await fetch(`http://${target.address}/metrics`)).text();
}

it('keeps verifying with the last good keys while the provider is down, says so, and refuses past the stale limit', async () => {
  const hospital = await t.nats('hospital');
  const manager = await provider.token('manager');
  const unused = await provider.token('desk');
  // Every process's keys fetched afresh, so the stale limit counts from now.
  await sleep(MAX_AGE_S * 1000 + 100);
  const fetched = provider.jwksFetches();
  expect(await viaHttp(t, charges, chargesOf(1), manager)).toMatchObject(ok);
  expect(await viaNats(hospital, charges, chargesOf(1), manager)).toMatchObject(ok);
  await eventually(async () => (provider.jwksFetches() >= fetched + 2 ? true : undefined));
  expect((await t.get('/health/details', { token: manager })).body.identity_provider).toMatchObject({ status: 'ok' });

  await provider.stop();
  // Longer than the keys' maximum age: each process tries to fetch them again, and cannot.
  await sleep(MAX_AGE_S * 1000 + 500);
  expect(await viaHttp(t, charges, chargesOf(1), unused)).toMatchObject(ok);
  expect(await viaNats(hospital, charges, chargesOf(1), unused)).toMatchObject(ok);
  const details = await eventually(async () => {
    const res = await t.get('/health/details', { token: manager });
    return res.body.identity_provider?.status === 'unreachable' ? res : undefined;
  });
  expect(details.status).toBe(200);
  expect(details.body.identity_provider).toMatchObject({
    keys: 2,
    last_failure: { failures: expect.any(Number), error: expect.any(String) },
  });
  expect(Date.parse(details.body.identity_provider.usable_until)).toBeGreaterThan(Date.now());
  const warned = readFileSync(join(t.stack.logDir, 'gateway.log'), 'utf8')
    .split('\n')
    .filter((line) => line.includes('identity provider unreachable'))
    .map((line) => JSON.parse(line));
  expect(warned[0]).toMatchObject({ level: 'warn', jwks_url: `${provider.issuer}/jwks`, reason: 'max_age' });
  expect(await gatewayMetrics()).toMatch(
    /clinic_jwks_fetches_total\{[^}]*reason="max_age",outcome="failed"[^}]*\} [1-9]/,
  );
  // What the IdentityProviderUnreachable alert watches (deploy/prometheus/alerts.yml).
  expect(await gatewayMetrics()).toMatch(/^clinic_identity_provider_up(\{[^}]*\})? 0$/m);

  // Past the stale limit every token is refused, one verified before included, at the gateway and over NATS.
  await eventually(
    async () => ((await viaHttp(t, charges, chargesOf(1), unused)).status === 401 ? true : undefined),
    STALE_MAX_S * 1000 + 10_000,
    250,
  );
  expect(await viaHttp(t, charges, chargesOf(1), manager)).toEqual(invalid);
  await eventually(async () =>
    (await viaNats(hospital, charges, chargesOf(1), unused)).status === 401 ? true : undefined,
  );
  expect(await viaNats(hospital, charges, chargesOf(1), unused)).toEqual(invalid);

  // The provider back: the keys are fetched at the next token, which is taken.
  provider = await startProvider(port, [ec.private, rsa.private], 'ES256');
  expect(await viaHttp(t, charges, chargesOf(1), unused)).toMatchObject(ok);
  expect(await viaNats(hospital, charges, chargesOf(1), unused)).toMatchObject(ok);
  expect((await t.get('/health/details', { token: manager })).body.identity_provider).toMatchObject({ status: 'ok' });
  expect(await gatewayMetrics()).toMatch(/^clinic_identity_provider_up(\{[^}]*\})? 1$/m);
}, 90_000);
