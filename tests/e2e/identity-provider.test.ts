/**
 * A hospital's identity provider (issue 29): a real OpenID Provider
 * (node-oidc-provider, tests/e2e/oidc-provider.mjs) issues access tokens by
 * the client credentials grant, with Keycloak-like claims (the roles in
 * `realm_access.roles`, the branches in `store_ids`); the gateway and every
 * service verify them with its JWKS (JWT_JWKS_URL), its issuer and the
 * audience. A key rotation from RS256 to ES256 is picked up, a wrong issuer or
 * audience is refused, and unknown `kid`s do not hammer the provider.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, createPublicKey, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { BRANCH_MESSAGES, HTTP_ROUTES, TOKEN_MESSAGES } from '@clinic/contracts';
import { freeListeningPort, REPO_ROOT, waitFor } from '@clinic/devstack';
import { viaHttp, viaNats, type Call } from './branch-transport';
import { branch } from './fixtures';
import { sleep, startTestStack, TEST_JWT_SECRET, type TestStack } from './harness';

const AUDIENCE = 'urn:clinic:api';
const REFRESH_MIN_S = 2;

interface Provider {
  issuer: string;
  /** Times its keys were fetched. */
  jwksFetches: () => number;
  token(client: string, resource?: string): Promise<string>;
  stop(): Promise<void>;
}

const clients = {
  desk: {
    secret: randomBytes(24).toString('base64url'),
    claims: { realm_access: { roles: ['offline_access', 'cashier'] }, store_ids: [1] },
  },
  manager: {
    secret: randomBytes(24).toString('base64url'),
    claims: { realm_access: { roles: ['admin', 'uma_authorization'] } },
  },
  // A directory entry nobody gave branches: no store_ids claim at all.
  'no-branch': {
    secret: randomBytes(24).toString('base64url'),
    claims: { realm_access: { roles: ['cashier'] } },
  },
  // A role claim of text, holding what the directory holds rather than one of this system's roles.
  'odd-role': {
    secret: randomBytes(24).toString('base64url'),
    claims: { realm_access: { roles: 'superuser' }, store_ids: [1] },
  },
};

function signingKey(kind: 'rsa' | 'ec', kid: string): { private: JsonWebKey; pem: string } {
  const pair =
    kind === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = pair.privateKey.export({ format: 'jwk' });
  return {
    private: { ...jwk, kid, alg: kind === 'rsa' ? 'RS256' : 'ES256', use: 'sig' },
    pem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** The provider as a process of its own, on `port`, signing with the first of `keys` (`alg`). */
async function startProvider(port: number, keys: JsonWebKey[], alg: 'RS256' | 'ES256'): Promise<Provider> {
  const issuer = `http://127.0.0.1:${port}`;
  const config = { port, issuer, keys, alg, resources: [AUDIENCE, 'urn:other:api'], clients };
  const child: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, 'tests', 'e2e', 'oidc-provider.mjs')], {
    env: { ...process.env, OIDC_PROVIDER: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  await waitFor(
    'the OpenID Provider to listen',
    async () => out.includes('listening') || child.exitCode !== null,
    20_000,
    50,
  );
  if (!out.includes('listening')) throw new Error(`OpenID Provider exited:\n${out}`);
  return {
    issuer,
    jwksFetches: () => out.split('\n').filter((line) => line === 'jwks').length,
    async token(client, resource = AUDIENCE) {
      const { secret } = clients[client as keyof typeof clients];
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${client}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'api' }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const rsa = signingKey('rsa', 'rsa-1');
const ec = signingKey('ec', 'ec-2');
let port: number;
let provider: Provider;
let t: TestStack;

const charges = HTTP_ROUTES.find((r) => r.method === 'GET' && r.url === '/hospital_charges')!;
const chargesOf = (store: number): Call => ({ query: { store_id: String(store) } });

beforeAll(async () => {
  port = await freeListeningPort();
  provider = await startProvider(port, [rsa.private], 'RS256');
  t = await startTestStack({
    env: {
      JWT_JWKS_URL: `${provider.issuer}/jwks`,
      JWT_ISSUER: provider.issuer,
      JWT_AUDIENCE: AUDIENCE,
      JWT_ROLE_CLAIM: 'realm_access.roles',
      JWT_JWKS_REFRESH_MIN_S: String(REFRESH_MIN_S),
    },
  });
  await t.seed({ stores: [branch(1, 'Colombo')] });
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await provider?.stop();
});

it("takes the provider's RS256 tokens, with the role and the branches where it puts them, at the gateway and over NATS", async () => {
  const desk = await provider.token('desk');
  expect(JSON.parse(Buffer.from(desk.split('.')[0]!, 'base64url').toString())).toMatchObject({
    alg: 'RS256',
    kid: 'rsa-1',
  });
  const hospital = await t.nats('hospital');
  expect(await viaHttp(t, charges, chargesOf(1), desk)).toMatchObject({ status: 200, body: { success: true } });
  expect(await viaNats(hospital, charges, chargesOf(1), desk)).toMatchObject({ status: 200, body: { success: true } });
  // The branches of the provider's store_ids claim, and the role of its list of roles.
  const outside = {
    status: 403,
    body: { success: false, error: BRANCH_MESSAGES.notAllowed, code: 'BRANCH_NOT_ALLOWED' },
  };
  expect(await viaHttp(t, charges, chargesOf(2), desk)).toEqual(outside);
  expect(await viaNats(hospital, charges, chargesOf(2), desk)).toEqual(outside);
  const manager = await provider.token('manager');
  const created = await t.post(
    '/hospital_charges',
    { store_id: 1, charge_name: 'CBC', charge_type: 'Lab', amount: 5 },
    { token: manager },
  );
  expect(created.status).toBe(201);
  expect(
    (await t.get(`/hospital_charges/${created.body.charge_id}/history`, { token: manager })).body.history[0].by,
  ).toEqual({
    sub: 'manager',
    role: 'admin',
  });
  expect((await t.del(`/lab_bills/1`, { token: desk })).status).toBe(403);
});

it('refuses a token of another audience, of another issuer, or signed with the shared secret', async () => {
  const refused = { status: 401, body: { success: false, error: TOKEN_MESSAGES.invalid, code: 'TOKEN_INVALID' } };
  expect(await viaHttp(t, charges, chargesOf(1), await provider.token('desk', 'urn:other:api'))).toEqual(refused);
  // Another provider with the same key: the signature holds, the issuer does not.
  const otherPort = await freeListeningPort();
  const other = await startProvider(otherPort, [rsa.private], 'RS256');
  try {
    const foreign = await other.token('desk');
    expect(await viaHttp(t, charges, chargesOf(1), foreign)).toEqual(refused);
    expect(await viaNats(await t.nats('hospital'), charges, chargesOf(1), foreign)).toEqual(refused);
  } finally {
    await other.stop();
  }
  const shared = createSigner({ key: TEST_JWT_SECRET, expiresIn: 600_000 })({ sub: 1, role: 'admin' });
  expect(await viaHttp(t, charges, chargesOf(1), shared)).toEqual(refused);
});

it('refuses a staff token without branches (BRANCH_SCOPE is required by default), and a role it does not know', async () => {
  const hospital = await t.nats('hospital');
  const unscoped = { status: 403, body: { success: false, error: BRANCH_MESSAGES.noBranch, code: 'BRANCH_REQUIRED' } };
  const noBranch = await provider.token('no-branch');
  expect(await viaHttp(t, charges, chargesOf(1), noBranch)).toEqual(unscoped);
  expect(await viaNats(hospital, charges, chargesOf(1), noBranch)).toEqual(unscoped);
  const unknownRole = { status: 401, body: { success: false, error: TOKEN_MESSAGES.claims, code: 'TOKEN_INVALID' } };
  const oddRole = await provider.token('odd-role');
  expect(await viaHttp(t, charges, chargesOf(1), oddRole)).toEqual(unknownRole);
  expect(await viaNats(hospital, charges, chargesOf(1), oddRole)).toEqual(unknownRole);
  // An admin without branches keeps the chain-wide reach issue 26 gives it.
  expect(await viaHttp(t, charges, chargesOf(2), await provider.token('manager'))).toMatchObject({ status: 200 });
});

it("refuses an HS256 token whose secret is the provider's public key (an algorithm swap)", async () => {
  const publicPem = createPublicKey(rsa.pem).export({ type: 'spki', format: 'pem' }).toString();
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = {
    sub: 'intruder',
    iss: provider.issuer,
    aud: AUDIENCE,
    exp: Math.floor(Date.now() / 1000) + 600,
    realm_access: { roles: ['admin'] },
  };
  const input = `${part({ alg: 'HS256', typ: 'JWT', kid: 'rsa-1' })}.${part(claims)}`;
  const swapped = `${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`;
  const refused = { status: 401, body: { success: false, error: TOKEN_MESSAGES.invalid, code: 'TOKEN_INVALID' } };
  expect(await viaHttp(t, charges, chargesOf(1), swapped)).toEqual(refused);
  expect(await viaNats(await t.nats('hospital'), charges, chargesOf(1), swapped)).toEqual(refused);
});

it('picks up a key rotation (RS256 to ES256) and keeps taking the tokens of the key still published', async () => {
  const before = await provider.token('desk');
  await provider.stop();
  provider = await startProvider(port, [ec.private, rsa.private], 'ES256');
  // The cached keys lack the new kid: one fetch, once the least time between fetches has passed since the last.
  await sleep(REFRESH_MIN_S * 1000 + 200);
  const after = await provider.token('desk');
  expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString())).toMatchObject({
    alg: 'ES256',
    kid: 'ec-2',
  });
  expect(await viaHttp(t, charges, chargesOf(1), after)).toMatchObject({ status: 200, body: { success: true } });
  expect(await viaNats(await t.nats('hospital'), charges, chargesOf(1), after)).toMatchObject({ status: 200 });
  expect(await viaHttp(t, charges, chargesOf(1), before)).toMatchObject({ status: 200 });
  expect(provider.jwksFetches()).toBeGreaterThanOrEqual(1);
});

it('fetches the keys at most once per interval however many unknown kids arrive', async () => {
  await sleep(REFRESH_MIN_S * 1000 + 200);
  const fetchesBefore = provider.jwksFetches();
  const forged = Array.from({ length: 30 }, (_, i) =>
    createSigner({
      key: rsa.pem,
      algorithm: 'RS256',
      kid: `unknown-${i}`,
      iss: provider.issuer,
      aud: AUDIENCE,
      expiresIn: 600_000,
    })({
      sub: 'intruder',
      realm_access: { roles: ['admin'] },
    }),
  );
  // One after another (concurrent lookups would share one fetch anyway).
  const statuses = new Set<number>();
  for (const token of forged) statuses.add((await viaHttp(t, charges, chargesOf(1), token)).status);
  expect(statuses).toEqual(new Set([401]));
  // The gateway refused them all: at most one fetch (two if the interval ended during the burst), not thirty.
  expect(provider.jwksFetches() - fetchesBefore).toBeLessThanOrEqual(2);
});
