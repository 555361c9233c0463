/**
 * The one token policy of the system: the gateway checks the bearer token of
 * each HTTP request with it, and every service checks again, with the same
 * key and rules, the token that comes with each NATS request. Holding a NATS
 * password is therefore never enough to act as a user.
 */
import { readFileSync } from 'node:fs';
import { createVerifier } from 'fast-jwt';
import { Limits, TOKEN_MESSAGES, type AccessSettings, type Caller } from '@clinic/contracts';
import { readEnv, type EnvProperties, type EnvValues } from './env';
import { callerOfClaims, TokenRefused, type ClaimRules } from './token-claims';
import { estimatedEntropyBits, publishedSecretReason, SECRET_MIN_ENTROPY_BITS } from './secret-strength';

export type TokenKey = { algorithm: 'HS256'; secret: string } | { algorithm: 'RS256'; publicKey: string };

export interface TokenPolicy extends ClaimRules {
  key: TokenKey;
  /** Who may call what beyond the roles of the spec (BRANCH_SCOPE, SESSION_WRITE_ROLES). */
  access: AccessSettings;
}

export const TOKEN_MAX_LIFETIME_DEFAULT_SECONDS = 24 * 3600;
export const TOKEN_CLOCK_SKEW_SECONDS = 60;
/** RFC 7518 3.2: an HS256 key of at least the hash's size. */
export const HS256_MIN_SECRET_BYTES = 32;

export const TOKEN_LIFETIME_ENV = {
  JWT_MAX_LIFETIME_S: { type: 'integer', default: TOKEN_MAX_LIFETIME_DEFAULT_SECONDS },
} as const satisfies EnvProperties;

export const TOKEN_ENV = {
  JWT_SECRET: { type: 'string' },
  JWT_PUBLIC_KEY: { type: 'string' },
  ...TOKEN_LIFETIME_ENV,
  // `required`: staff tokens must name their branches (store_ids); admin keeps chain-wide reach without.
  BRANCH_SCOPE: { type: 'string', enum: ['optional', 'required'], default: 'optional' },
  // Comma-separated roles that may write sessions; unset: any authenticated caller, as the spec says.
  SESSION_WRITE_ROLES: { type: 'string' },
  NODE_ENV: { type: 'string' },
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

/**
 * The token settings of this process: RS256 with JWT_PUBLIC_KEY, else HS256
 * with JWT_SECRET. There is no default key (npm start makes a secret of its own
 * in DATA_DIR). With NODE_ENV=production an HS256 secret that is short,
 * guessable or published stops the process at start.
 */
export function tokenPolicyOf(env: EnvValues<typeof TOKEN_ENV>): TokenPolicy {
  const maxLifetimeSeconds = env.JWT_MAX_LIFETIME_S;
  if (maxLifetimeSeconds < 1) throw new Error('JWT_MAX_LIFETIME_S must be a positive number of seconds');
  const policy = {
    maxLifetimeSeconds,
    clockSkewSeconds: TOKEN_CLOCK_SKEW_SECONDS,
    access: {
      branchScopeRequired: env.BRANCH_SCOPE === 'required',
      sessionWriteRoles: roleList(env.SESSION_WRITE_ROLES),
    },
  };
  const publicKey = env.JWT_PUBLIC_KEY;
  if (publicKey) return { ...policy, key: { algorithm: 'RS256', publicKey: readPem(publicKey) } };
  const secret = env.JWT_SECRET;
  if (!secret) throw new Error('Set JWT_SECRET or JWT_PUBLIC_KEY: there is no default token key');
  const problem = env.NODE_ENV === 'production' ? productionSecretProblem(secret) : null;
  if (problem) throw new Error(problem);
  return { ...policy, key: { algorithm: 'HS256', secret } };
}

/** The token policy of a process that reads no other setting (command-line tools, tests). */
export function tokenPolicyFromEnv(): TokenPolicy {
  return tokenPolicyOf(readEnv(TOKEN_ENV));
}

export interface VerifiedCaller {
  caller: Caller;
  /** The token itself, to forward with requests made on the caller's behalf. */
  token: string;
}

/** Checks an `Authorization` value (`Bearer <JWT>`) and returns the caller, or throws TokenRefused. */
export type TokenVerifier = (authorization: string | undefined | null) => VerifiedCaller;

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The verifier of a policy: signature pinned to one algorithm (so `alg: none`
 * and algorithm swaps fail), `exp` required, then the claims (token-claims.ts):
 * `sub` and `role` required, `store_ids` well formed, `iat` not ahead of the
 * clock beyond the skew, and no lifetime beyond the maximum.
 */
export function createTokenVerifier(policy: TokenPolicy): TokenVerifier {
  const verify = createVerifier({
    key: policy.key.algorithm === 'HS256' ? policy.key.secret : policy.key.publicKey,
    algorithms: [policy.key.algorithm],
    requiredClaims: ['exp'],
    // Verified tokens are cached; fast-jwt still checks their expiry on every use.
    cache: 10_000,
  });
  return (authorization) => {
    if (!authorization) throw new TokenRefused(TOKEN_MESSAGES.missing);
    const token = BEARER.exec(authorization)?.[1];
    if (!token || token.length > Limits.tokenMaxLength) throw new TokenRefused(TOKEN_MESSAGES.invalid);
    let claims: unknown;
    try {
      claims = verify(token);
    } catch (err) {
      throw new TokenRefused(
        (err as { code?: string }).code === 'FAST_JWT_EXPIRED' ? TOKEN_MESSAGES.expired : TOKEN_MESSAGES.invalid,
      );
    }
    return { caller: callerOfClaims(claims, policy), token };
  };
}
