/**
 * A hospital's identity provider: a real OpenID Provider
 * (identity-provider-stack.ts) issues access tokens with Keycloak-like claims;
 * the gateway and every service verify them with its JWKS (JWT_JWKS_URL), its
 * issuer and the audience. Roles and branches are read where the provider puts
 * them; a wrong issuer or audience, the shared secret and an algorithm swap are
 * refused. Its keys, their rotation and an outage: identity-provider-keys.test.ts.
 */
import { createHmac, createPublicKey } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { BRANCH_MESSAGES, TOKEN_MESSAGES } from '@clinic/contracts';
import { freeListeningPort } from '@clinic/devstack';
import { viaHttp, viaNats } from './branch-transport';
import { TEST_JWT_SECRET, type TestStack } from './harness';
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

const rsa = signingKey('rsa', 'rsa-1');
let provider: Provider;
let t: TestStack;

beforeAll(async () => {
  provider = await startProvider(await freeListeningPort(), [rsa.private], 'RS256');
  t = await identityStack(provider);
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await provider?.stop();
});

it("takes the provider's RS256 tokens, with the role and the branches where it puts them, at the gateway and over NATS", async () => {
  const desk = await provider.token('desk');
  expect(headerOf(desk)).toMatchObject({ alg: 'RS256', kid: 'rsa-1' });
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
