/**
 * The one token policy of the system: the gateway checks the bearer token of
 * each HTTP request with it, and every service checks again, with the same
 * key and rules, the token that comes with each NATS request. Holding a NATS
 * password is therefore never enough to act as a user.
 */
import { readFileSync } from 'node:fs';
import { STAFF_ROLES, type AccessSettings } from '@clinic/contracts';
import { integerVar, readEnv, textVar, type EnvProperties, type EnvValues } from '../process/env';
import { estimatedEntropyBits, publishedSecretReason, SECRET_MIN_ENTROPY_BITS } from './secret-strength';
import type { ClaimRules } from './token-claims';

export type TokenKey =
  | { algorithm: 'HS256'; secret: string }
  | { algorithm: 'RS256'; publicKey: string }
  /** An identity provider's keys (RS256 or ES256), named by each token's `kid`. */
  | { algorithm: 'JWKS'; url: string; refreshMinSeconds: number; maxAgeSeconds: number; staleMaxSeconds: number };

export interface TokenPolicy extends ClaimRules {
  key: TokenKey;
  /** JWT_ISSUER and JWT_AUDIENCE: when set (always with a JWKS), a token must carry exactly this `iss`, this `aud`. */
  issuer: string | null;
  audience: string | null;
  /** Who may call what beyond the roles of the spec (BRANCH_SCOPE, SESSION_WRITE_ROLES). */
  access: AccessSettings;
}

export const TOKEN_MAX_LIFETIME_DEFAULT_SECONDS = 24 * 3600;
export const TOKEN_CLOCK_SKEW_SECONDS = 60;
/** RFC 7518 3.2: an HS256 key of at least the hash's size. */
export const HS256_MIN_SECRET_BYTES = 32;

export const TOKEN_LIFETIME_ENV = {
  JWT_MAX_LIFETIME_S: integerVar(
    TOKEN_MAX_LIFETIME_DEFAULT_SECONDS,
    'Tokens whose `exp` is further ahead (from now or from `iat`) are refused; `npm run token` signs no longer.',
  ),
} as const satisfies EnvProperties;

export const TOKEN_ENV = {
  JWT_SECRET: textVar(
    'The HS256 key. Required unless `JWT_PUBLIC_KEY` or `JWT_JWKS_URL` is set (npm start passes its own, `DATA_DIR/jwt-secret`); with `NODE_ENV=production` refused when shorter than 32 bytes, guessable (an entropy estimate under 96 bits) or published (a secret this repository ever shipped, or one found in a tracked file when the process runs from a git checkout).',
  ),
  JWT_PUBLIC_KEY: textVar(
    'A PEM, or a path to one: tokens are RS256, checked with this key (it takes precedence over `JWT_SECRET`).',
  ),
  JWT_JWKS_URL: textVar(
    "A hospital identity provider's key set (https with `NODE_ENV=production`); with `JWT_ISSUER` and `JWT_AUDIENCE`, all three together. Takes precedence over `JWT_PUBLIC_KEY`.",
  ),
  JWT_ISSUER: textVar("The `iss` the identity provider's tokens must carry."),
  JWT_AUDIENCE: textVar("The `aud` the identity provider's tokens must carry for this API."),
  JWT_JWKS_REFRESH_MIN_S: integerVar(
    30,
    'The least time between two fetches of the key set that one unknown `kid` causes (all unknown `kid`s together cause at most one a second).',
  ),
  JWT_JWKS_MAX_AGE_S: integerVar(
    600,
    "The identity provider's key set is fetched again once it is this old (in the background), so that a key it removed stops verifying.",
  ),
  JWT_JWKS_STALE_MAX_S: integerVar(
    86_400,
    'While the identity provider cannot be reached, its last good key set keeps verifying until this long after it was fetched; past it every token is refused (401) until the provider answers again.',
  ),
  JWT_ROLE_CLAIM: {
    type: 'string',
    default: 'role',
    description: 'Where a token holds the role, as a dotted path (Keycloak: `realm_access.roles`).',
  },
  JWT_STORE_IDS_CLAIM: {
    type: 'string',
    default: 'store_ids',
    description: 'Where a token holds its branches, as a dotted path.',
  },
  ...TOKEN_LIFETIME_ENV,
  BRANCH_SCOPE: {
    type: 'string',
    enum: ['optional', 'required'],
    shownDefault: '`optional` (`required` when `JWT_JWKS_URL` is set)',
    description:
      "`optional`: a token without `store_ids` reaches every branch; `required`: only an admin's does, other roles get 403.",
  },
  SESSION_WRITE_ROLES: textVar(
    'Comma-separated roles that may create, update, delete and auto-create sessions; unset: any authenticated caller (the spec).',
  ),
  NODE_ENV: textVar('`production` refuses a weak or published `JWT_SECRET` and a plain-http `JWT_JWKS_URL`.'),
} as const satisfies EnvProperties;

/** A PEM given inline (`\n` escapes allowed) or as a path to a file. */
function readPem(value: string): string {
  return value.includes('-----BEGIN') ? value.replace(/\\n/g, '\n') : readFileSync(value, 'utf8');
}

/** `admin, receptionist` -> ['admin', 'receptionist']; unset or blank: null. */
function roleList(value: string | undefined): readonly string[] | null {
  const roles = [...new Set((value ?? '').split(',').map((role) => role.trim()))].filter(Boolean);
  return roles.length > 0 ? roles : null;
}

/** Why NODE_ENV=production refuses an HS256 secret (too short, guessable, or published), or null. */
function productionSecretProblem(secret: string): string | null {
  if (Buffer.byteLength(secret) < HS256_MIN_SECRET_BYTES)
    return `JWT_SECRET must be at least ${HS256_MIN_SECRET_BYTES} bytes when NODE_ENV=production (HS256)`;
  const refused = 'JWT_SECRET is refused when NODE_ENV=production';
  const bits = estimatedEntropyBits(secret);
  if (bits < SECRET_MIN_ENTROPY_BITS)
    return `${refused}: it is too easy to guess (about ${bits} bits of entropy estimated, at least ${SECRET_MIN_ENTROPY_BITS} needed; make one with \`openssl rand -base64 48\`)`;
  const published = publishedSecretReason(secret);
  return published ? `${refused}: ${published}` : null;
}

/** `realm_access.roles` -> ['realm_access', 'roles']. */
function claimPath(variable: string, value: string): string[] {
  const path = value.split('.');
  if (path.some((part) => part.trim() === ''))
    throw new Error(`${variable} must be a claim name or a dotted path, got "${value}"`);
  return path;
}

/** JWT_JWKS_URL, with the issuer and audience a token from it must carry (https in production). */
function jwksKeyOf(env: EnvValues<typeof TOKEN_ENV>, url: string): TokenKey {
  if (!env.JWT_ISSUER || !env.JWT_AUDIENCE)
    throw new Error(
      'JWT_JWKS_URL needs JWT_ISSUER and JWT_AUDIENCE: a token of any other issuer or audience is refused',
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`JWT_JWKS_URL must be a URL, got "${url}"`);
  }
  if (env.NODE_ENV === 'production' && parsed.protocol !== 'https:')
    throw new Error('JWT_JWKS_URL must be https when NODE_ENV=production');
  for (const name of ['JWT_JWKS_REFRESH_MIN_S', 'JWT_JWKS_MAX_AGE_S'] as const)
    if (env[name] < 1) throw new Error(`${name} must be a positive number of seconds`);
  if (env.JWT_JWKS_STALE_MAX_S < env.JWT_JWKS_MAX_AGE_S)
    throw new Error(
      'JWT_JWKS_STALE_MAX_S must be at least JWT_JWKS_MAX_AGE_S: keys stay usable at least as long as fresh',
    );
  return {
    algorithm: 'JWKS',
    url,
    refreshMinSeconds: env.JWT_JWKS_REFRESH_MIN_S,
    maxAgeSeconds: env.JWT_JWKS_MAX_AGE_S,
    staleMaxSeconds: env.JWT_JWKS_STALE_MAX_S,
  };
}

/**
 * The token settings of this process: an identity provider's keys with
 * JWT_JWKS_URL, else RS256 with JWT_PUBLIC_KEY, else HS256 with JWT_SECRET.
 * There is no default key (npm start makes a secret of its own in DATA_DIR).
 * With NODE_ENV=production an HS256 secret that is short, guessable or
 * published stops the process at start.
 */
export function tokenPolicyOf(env: EnvValues<typeof TOKEN_ENV>): TokenPolicy {
  const maxLifetimeSeconds = env.JWT_MAX_LIFETIME_S;
  if (maxLifetimeSeconds < 1) throw new Error('JWT_MAX_LIFETIME_S must be a positive number of seconds');
  const sessionWriteRoles = roleList(env.SESSION_WRITE_ROLES);
  const policy = {
    maxLifetimeSeconds,
    clockSkewSeconds: TOKEN_CLOCK_SKEW_SECONDS,
    issuer: env.JWT_ISSUER ?? null,
    audience: env.JWT_AUDIENCE ?? null,
    roleClaim: claimPath('JWT_ROLE_CLAIM', env.JWT_ROLE_CLAIM),
    storeIdsClaim: claimPath('JWT_STORE_IDS_CLAIM', env.JWT_STORE_IDS_CLAIM),
    appRoles: [...new Set([...STAFF_ROLES, ...(sessionWriteRoles ?? [])])],
    // An identity provider's tokens come from a directory this system does not control: a claim it lacks (the
    // branches, or an object on the way to them) must not mean every branch, nor a role it does not know a role.
    knownRolesOnly: Boolean(env.JWT_JWKS_URL),
    access: {
      branchScopeRequired: (env.BRANCH_SCOPE ?? (env.JWT_JWKS_URL ? 'required' : 'optional')) === 'required',
      sessionWriteRoles,
    },
  };
  if (env.JWT_JWKS_URL) return { ...policy, key: jwksKeyOf(env, env.JWT_JWKS_URL) };
  const publicKey = env.JWT_PUBLIC_KEY;
  if (publicKey) return { ...policy, key: { algorithm: 'RS256', publicKey: readPem(publicKey) } };
  const secret = env.JWT_SECRET;
  if (!secret) throw new Error('Set JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL: there is no default token key');
  const problem = env.NODE_ENV === 'production' ? productionSecretProblem(secret) : null;
  if (problem) throw new Error(problem);
  return { ...policy, key: { algorithm: 'HS256', secret } };
}

/** The token policy of a process that reads no other setting (command-line tools, tests). */
export function tokenPolicyFromEnv(): TokenPolicy {
  return tokenPolicyOf(readEnv(TOKEN_ENV));
}
