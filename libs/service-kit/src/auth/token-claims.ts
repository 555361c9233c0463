/**
 * What a verified token's claims must hold to name a caller: `sub`, `role`,
 * optional `store_ids` (the branches it is limited to), and times that keep
 * it short-lived. Pure; the signature is checked before (tokens.ts).
 */
import { TOKEN_MESSAGES, type Caller } from '@clinic/contracts';

/** A refused token; the message is one of TOKEN_MESSAGES, for a 401. */
export class TokenRefused extends Error {}

export interface ClaimRules {
  /** The longest a token may live: `exp` at most this far from now, and from `iat`. */
  maxLifetimeSeconds: number;
  /** How far ahead of this machine's clock a token's `iat` may be. */
  clockSkewSeconds: number;
  /** Where the role is (JWT_ROLE_CLAIM, `role`; Keycloak: `realm_access.roles`), as a path of claim names. */
  roleClaim: readonly string[];
  /** Where the branches are (JWT_STORE_IDS_CLAIM, `store_ids`). */
  storeIdsClaim: readonly string[];
  /** The roles this system knows, in order: the one a list of roles gives is the first of these it holds. */
  appRoles: readonly string[];
  /**
   * A role given as text must be one of appRoles (with an identity provider, whose role claim may hold anything a
   * directory holds); otherwise any text is a role, which the routes' access rules then judge.
   */
  knownRolesOnly: boolean;
}

type Claims = Record<string, unknown>;

const isPositiveInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** The value at a path of claim names (`realm_access.roles`), or undefined. */
function claimAt(claims: Claims, path: readonly string[]): unknown {
  let value: unknown = claims;
  for (const name of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, name))
      return undefined;
    value = (value as Claims)[name];
  }
  return value;
}

/** The role: the claim's text, or, when it is a list (an identity provider's roles), the first app role it holds. */
function roleOf(value: unknown, { appRoles, knownRolesOnly }: ClaimRules): string | null {
  if (typeof value === 'string') return value === '' || (knownRolesOnly && !appRoles.includes(value)) ? null : value;
  if (Array.isArray(value)) return appRoles.find((role) => value.includes(role)) ?? null;
  return null;
}

/** `store_ids`: absent (every branch), or a list of branch ids, kept once each. Anything else is refused. */
function storeIdsOf(value: unknown): readonly number[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every(isPositiveInteger)) throw new TokenRefused(TOKEN_MESSAGES.storeIds);
  return [...new Set(value)];
}

function checkTimes(claims: Claims, { maxLifetimeSeconds, clockSkewSeconds }: ClaimRules): void {
  // fast-jwt checks the type of exp and nbf, not of iat: a string iat would skip the checks below.
  if (claims.iat !== undefined && !Number.isFinite(claims.iat)) throw new TokenRefused(TOKEN_MESSAGES.iatNotNumber);
  const now = Date.now() / 1000;
  const iat = claims.iat as number | undefined;
  const exp = claims.exp as number;
  if (iat !== undefined && iat > now + clockSkewSeconds) throw new TokenRefused(TOKEN_MESSAGES.issuedInFuture);
  if (exp - now > maxLifetimeSeconds + clockSkewSeconds || (iat !== undefined && exp - iat > maxLifetimeSeconds)) {
    throw new TokenRefused(TOKEN_MESSAGES.tooLongLived);
  }
}

/** The caller a verified token names, or TokenRefused. */
export function callerOfClaims(value: unknown, rules: ClaimRules): Caller {
  if (typeof value !== 'object' || value === null) throw new TokenRefused(TOKEN_MESSAGES.claims);
  const claims = value as Claims;
  const { sub } = claims;
  const role = roleOf(claimAt(claims, rules.roleClaim), rules);
  const validSub = (typeof sub === 'string' && sub !== '') || (typeof sub === 'number' && Number.isSafeInteger(sub));
  if (!validSub || role === null) throw new TokenRefused(TOKEN_MESSAGES.claims);
  checkTimes(claims, rules);
  const storeIds = storeIdsOf(claimAt(claims, rules.storeIdsClaim));
  return storeIds === undefined ? { sub, role } : { sub, role, store_ids: storeIds };
}
