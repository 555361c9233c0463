import { createHmac, randomBytes } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { TOKEN_MESSAGES } from '@clinic/contracts';
import { createTokenVerifier, tokenPolicyFromEnv, TokenRefused, type TokenPolicy } from '../src/internal';

const SECRET = randomBytes(32).toString('base64url');
const policy: TokenPolicy = {
  key: { algorithm: 'HS256', secret: SECRET },
  maxLifetimeSeconds: 24 * 3600,
  clockSkewSeconds: 60,
  issuer: null,
  audience: null,
  roleClaim: ['role'],
  storeIdsClaim: ['store_ids'],
  appRoles: ['admin', 'receptionist', 'cashier'],
  knownRolesOnly: false,
  access: { branchScopeRequired: false, sessionWriteRoles: null },
};
const verify = createTokenVerifier(policy);
const now = () => Math.floor(Date.now() / 1000);
const sign = (claims: Record<string, unknown>, options: Record<string, unknown> = {}) =>
  createSigner({ key: SECRET, ...options })({ sub: 7, role: 'cashier', ...claims });

/** HS256 over the claims exactly as given (fast-jwt's signer sets or drops iat itself). */
function signedAsGiven(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`;
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
}

async function refusal(authorization: string | undefined): Promise<string | null> {
  try {
    await verify(authorization);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(TokenRefused);
    return (err as Error).message;
  }
}

it('returns the caller and the token of a valid bearer token', async () => {
  const token = sign({ exp: now() + 3600 });
  expect(await verify(`Bearer ${token}`)).toEqual({ caller: { sub: 7, role: 'cashier' }, token });
  expect((await verify(`bearer ${token}`)).caller.sub).toBe(7);
});

it('refuses a missing, malformed, oversized or foreign token with the messages the gateway uses', async () => {
  expect(await refusal(undefined)).toBe(TOKEN_MESSAGES.missing);
  expect(await refusal(sign({ exp: now() + 60 }))).toBe(TOKEN_MESSAGES.invalid); // no "Bearer"
  expect(await refusal('Bearer ')).toBe(TOKEN_MESSAGES.invalid);
  expect(await refusal(`Bearer ${'a'.repeat(9000)}`)).toBe(TOKEN_MESSAGES.invalid);
  expect(
    await refusal(
      `Bearer ${createSigner({ key: 'another-secret-of-32-bytes-or-more!!' })({ sub: 1, role: 'admin', exp: now() + 60 })}`,
    ),
  ).toBe(TOKEN_MESSAGES.invalid);
  expect(await refusal(`Bearer ${sign({ exp: now() - 10 })}`)).toBe(TOKEN_MESSAGES.expired);
  expect(await refusal(`Bearer ${sign({ role: '', exp: now() + 60 })}`)).toBe(TOKEN_MESSAGES.claims);
  expect(await refusal(`Bearer ${sign({})}`)).toBe(TOKEN_MESSAGES.invalid); // no exp
});

it('refuses iat ahead of the clock beyond the skew, and lifetimes over the maximum', async () => {
  expect(await refusal(`Bearer ${sign({ iat: now() + 30, exp: now() + 3600 })}`)).toBeNull();
  expect(await refusal(`Bearer ${sign({ iat: now() + 120, exp: now() + 3600 })}`)).toBe(TOKEN_MESSAGES.issuedInFuture);
  // A string (or any other non-number) iat is no way around the future-iat check.
  for (const iat of [String(now() + 3600), `${now()}`, null, [now()], { n: now() }])
    expect(await refusal(`Bearer ${signedAsGiven({ sub: 7, role: 'cashier', iat, exp: now() + 3600 })}`)).toBe(
      TOKEN_MESSAGES.iatNotNumber,
    );
  expect(await refusal(`Bearer ${sign({ exp: now() + 24 * 3600 })}`)).toBeNull();
  expect(await refusal(`Bearer ${sign({ exp: now() + 25 * 3600 }, { noTimestamp: true })}`)).toBe(
    TOKEN_MESSAGES.tooLongLived,
  );
  expect(await refusal(`Bearer ${sign({ iat: now() - 3600, exp: now() + 23.5 * 3600 })}`)).toBe(
    TOKEN_MESSAGES.tooLongLived,
  );
  expect(await refusal(`Bearer ${sign({ exp: 94_607_000_000_000 })}`)).toBe(TOKEN_MESSAGES.tooLongLived);
});

/**
 * The development default this repository once shipped, which nothing may
 * accept any more; written in parts so that the string itself is not in the
 * repository (secret-strength.ts knows it by its digest).
 */
const FORMER_DEV_DEFAULT = ['dev', 'only', 'insecure', 'jwt', 'secret', 'change', 'me'].join('-');

it('reads store_ids, the branches a token is limited to: a list of branch ids, kept once each', async () => {
  const claims = (store_ids: unknown) => signedAsGiven({ sub: 7, role: 'cashier', exp: now() + 60, store_ids });
  expect((await verify(`Bearer ${claims([2, 1, 2])}`)).caller).toEqual({ sub: 7, role: 'cashier', store_ids: [2, 1] });
  expect((await verify(`Bearer ${claims([])}`)).caller).toEqual({ sub: 7, role: 'cashier', store_ids: [] });
  expect((await verify(`Bearer ${sign({ exp: now() + 60 })}`)).caller).toEqual({ sub: 7, role: 'cashier' });
  for (const bad of ['1', 1, null, {}, [0], [-3], [1.5], ['1'], [2 ** 53]])
    expect(await refusal(`Bearer ${claims(bad)}`)).toBe(TOKEN_MESSAGES.storeIds);
});

it('reads the role and the branches where an identity provider puts them, and checks its issuer and audience', async () => {
  const keycloak = createTokenVerifier({
    ...policy,
    issuer: 'https://idp.example/realms/clinic',
    audience: 'clinic-api',
    roleClaim: ['realm_access', 'roles'],
    storeIdsClaim: ['clinic', 'branches'],
  });
  const token = (claims: Record<string, unknown>) =>
    `Bearer ${signedAsGiven({ sub: 'f3a9', exp: now() + 60, iss: 'https://idp.example/realms/clinic', aud: 'clinic-api', ...claims })}`;
  // A list of roles: the first of the app's roles (admin, receptionist, cashier) it holds, whatever its order.
  const roles = (list: unknown) => ({ realm_access: { roles: list } });
  expect((await keycloak(token(roles(['offline_access', 'cashier', 'admin'])))).caller).toEqual({
    sub: 'f3a9',
    role: 'admin',
  });
  expect((await keycloak(token({ ...roles(['cashier']), clinic: { branches: [2] } }))).caller).toEqual({
    sub: 'f3a9',
    role: 'cashier',
    store_ids: [2],
  });
  const refused = async (authorization: string) =>
    keycloak(authorization).then(
      () => null,
      (err: Error) => err.message,
    );
  expect(await refused(token(roles(['offline_access', 'uma_authorization'])))).toBe(TOKEN_MESSAGES.claims);
  expect(await refused(token({ role: 'cashier' }))).toBe(TOKEN_MESSAGES.claims);
  expect(await refused(token({ ...roles(['cashier']), clinic: { branches: ['2'] } }))).toBe(TOKEN_MESSAGES.storeIds);
  expect(await refused(token({ ...roles(['cashier']), iss: 'https://evil.example' }))).toBe(TOKEN_MESSAGES.invalid);
  expect(await refused(token({ ...roles(['cashier']), aud: 'another-api' }))).toBe(TOKEN_MESSAGES.invalid);
  expect(await refused(token({ ...roles(['cashier']), aud: undefined }))).toBe(TOKEN_MESSAGES.invalid);
  // A role claim of text from a directory: taken only when it is a role this system knows.
  const strict = createTokenVerifier({ ...policy, roleClaim: ['realm_access', 'roles'], knownRolesOnly: true });
  const plain = (claims: Record<string, unknown>) =>
    `Bearer ${signedAsGiven({ sub: 'f3a9', exp: now() + 60, ...claims })}`;
  expect((await strict(plain(roles('cashier')))).caller).toEqual({ sub: 'f3a9', role: 'cashier' });
  for (const unknown of ['superuser', 'Admin', 'cashier ']) {
    await expect(strict(plain(roles(unknown)))).rejects.toThrow(TOKEN_MESSAGES.claims);
  }
  expect(
    (await createTokenVerifier({ ...policy, roleClaim: ['realm_access', 'roles'] })(plain(roles('superuser')))).caller
      .role,
  ).toBe('superuser');
});

describe('tokenPolicyFromEnv', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  const withEnv = (env: Record<string, string | undefined>) => {
    process.env = {
      ...saved,
      JWT_SECRET: undefined,
      JWT_PUBLIC_KEY: undefined,
      JWT_MAX_LIFETIME_S: undefined,
      BRANCH_SCOPE: undefined,
      SESSION_WRITE_ROLES: undefined,
      JWT_JWKS_URL: undefined,
      JWT_ISSUER: undefined,
      JWT_AUDIENCE: undefined,
      JWT_JWKS_MAX_AGE_S: undefined,
      JWT_JWKS_STALE_MAX_S: undefined,
      JWT_ROLE_CLAIM: undefined,
      JWT_STORE_IDS_CLAIM: undefined,
      NODE_ENV: undefined,
      ...env,
    };
    return tokenPolicyFromEnv;
  };

  it('has no default key: without JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL a process does not start', () => {
    expect(withEnv({})).toThrow('Set JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL: there is no default token key');
    expect(withEnv({ NODE_ENV: 'production' })).toThrow(/no default token key/);
  });

  it('refuses, with NODE_ENV=production, an HS256 secret that is short, guessable or published', () => {
    const strong = randomBytes(32).toString('base64url');
    expect(withEnv({ NODE_ENV: 'production', JWT_SECRET: 'a' })).toThrow(/at least 32 bytes/);
    expect(withEnv({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(31) })).toThrow(/at least 32 bytes/);
    for (const guessable of [
      'x'.repeat(64),
      'ab'.repeat(20),
      'password'.repeat(5),
      'abcdefghijklmnopqrstuvwxyz0123456789',
    ])
      expect(withEnv({ NODE_ENV: 'production', JWT_SECRET: guessable })).toThrow(/too easy to guess/);
    expect(withEnv({ NODE_ENV: 'production', JWT_SECRET: FORMER_DEV_DEFAULT })).toThrow(/published in this repository/);
    expect(withEnv({ NODE_ENV: 'production', JWT_SECRET: strong })().key).toEqual({
      algorithm: 'HS256',
      secret: strong,
    });
  });

  it('takes an identity provider only with its issuer and audience, over https in production', () => {
    const idp = {
      JWT_JWKS_URL: 'http://127.0.0.1:9/jwks',
      JWT_ISSUER: 'http://127.0.0.1:9',
      JWT_AUDIENCE: 'clinic-api',
    };
    expect(withEnv(idp)()).toMatchObject({
      key: {
        algorithm: 'JWKS',
        url: idp.JWT_JWKS_URL,
        refreshMinSeconds: 30,
        maxAgeSeconds: 600,
        staleMaxSeconds: 86_400,
      },
      issuer: idp.JWT_ISSUER,
      audience: 'clinic-api',
      roleClaim: ['role'],
    });
    expect(withEnv({ ...idp, JWT_ISSUER: undefined })).toThrow(/needs JWT_ISSUER and JWT_AUDIENCE/);
    expect(withEnv({ ...idp, JWT_AUDIENCE: undefined })).toThrow(/needs JWT_ISSUER and JWT_AUDIENCE/);
    expect(withEnv({ ...idp, NODE_ENV: 'production' })).toThrow(/must be https/);
    expect(withEnv({ ...idp, JWT_JWKS_MAX_AGE_S: '60', JWT_JWKS_STALE_MAX_S: '30' })).toThrow(
      /at least JWT_JWKS_MAX_AGE_S/,
    );
    expect(withEnv({ ...idp, JWT_JWKS_MAX_AGE_S: '0' })).toThrow(/JWT_JWKS_MAX_AGE_S must be a positive/);
    expect(withEnv({ ...idp, JWT_ROLE_CLAIM: 'realm_access.roles' })().roleClaim).toEqual(['realm_access', 'roles']);
    expect(withEnv({ ...idp, JWT_ROLE_CLAIM: 'realm_access..roles' })).toThrow(/JWT_ROLE_CLAIM/);
    // A directory's tokens: branches required unless said otherwise, and only known roles taken from a text claim.
    expect(withEnv(idp)()).toMatchObject({ knownRolesOnly: true, access: { branchScopeRequired: true } });
    expect(withEnv({ ...idp, BRANCH_SCOPE: 'optional' })().access.branchScopeRequired).toBe(false);
    expect(withEnv({ JWT_SECRET: 'a' })().knownRolesOnly).toBe(false);
    expect(withEnv({ ...idp, SESSION_WRITE_ROLES: 'doctor' })().appRoles).toEqual([
      'admin',
      'receptionist',
      'cashier',
      'doctor',
    ]);
  });

  it('takes any secret outside production, and reads the maximum lifetime', () => {
    expect(withEnv({ JWT_SECRET: 'a' })().key).toEqual({ algorithm: 'HS256', secret: 'a' });
    expect(withEnv({ JWT_SECRET: FORMER_DEV_DEFAULT })().key.algorithm).toBe('HS256');
    expect(withEnv({ JWT_SECRET: 'a', JWT_MAX_LIFETIME_S: '3600' })().maxLifetimeSeconds).toBe(3600);
    expect(withEnv({ JWT_SECRET: 'a' })().maxLifetimeSeconds).toBe(86400);
    expect(withEnv({ JWT_SECRET: 'a', JWT_MAX_LIFETIME_S: '0' })).toThrow(/positive/);
    expect(withEnv({ JWT_SECRET: 'a' })().access).toEqual({ branchScopeRequired: false, sessionWriteRoles: null });
    expect(withEnv({ JWT_SECRET: 'a', BRANCH_SCOPE: 'required' })().access.branchScopeRequired).toBe(true);
    expect(withEnv({ JWT_SECRET: 'a', SESSION_WRITE_ROLES: ' admin, receptionist,,admin ' })().access).toEqual({
      branchScopeRequired: false,
      sessionWriteRoles: ['admin', 'receptionist'],
    });
    expect(withEnv({ JWT_SECRET: 'a', BRANCH_SCOPE: 'yes' })).toThrow(/BRANCH_SCOPE must be optional or required/);
  });
});
