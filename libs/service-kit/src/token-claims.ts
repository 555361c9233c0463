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
}

type Claims = Record<string, unknown>;

const isPositiveInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** `store_ids`: absent (every branch), or a list of branch ids, kept once each. Anything else is refused. */
function storeIdsOf(claims: Claims): readonly number[] | undefined {
  const value = claims.store_ids;
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
  const { sub, role } = claims;
  const validSub = (typeof sub === 'string' && sub !== '') || (typeof sub === 'number' && Number.isSafeInteger(sub));
  if (!validSub || typeof role !== 'string' || role === '') throw new TokenRefused(TOKEN_MESSAGES.claims);
  checkTimes(claims, rules);
  const storeIds = storeIdsOf(claims);
  return storeIds === undefined ? { sub, role } : { sub, role, store_ids: storeIds };
}
