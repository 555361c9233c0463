/**
 * The one token check of the system: the gateway checks the bearer token of
 * each HTTP request with it, and every service checks again, with the same
 * policy (tokens.ts), the token that comes with each NATS request. Holding a
 * NATS password is therefore never enough to act as a user.
 */
import { createVerifier } from 'fast-jwt';
import { Limits, TOKEN_MESSAGES, type Caller } from '@clinic/contracts';
import type { Logger } from '../process/logger';
import { JwksKeyStore, type IdentityProviderStatus } from './jwks';
import { callerOfClaims, TokenRefused } from './token-claims';
import type { TokenPolicy } from './tokens';

export interface VerifiedCaller {
  caller: Caller;
  /** The token itself, to forward with requests made on the caller's behalf. */
  token: string;
}

/** Checks an `Authorization` value (`Bearer <JWT>`) and answers the caller, or rejects with TokenRefused. */
export type TokenVerifier = ((authorization: string | undefined | null) => Promise<VerifiedCaller>) & {
  /** With an identity provider: whether its keys can be fetched, and until when the last good ones verify. */
  identityProvider?: () => IdentityProviderStatus;
};

const BEARER = /^Bearer +(\S+) *$/i;

/** fast-jwt's verification of a policy's key, pinned to its algorithms (one each: no algorithm swaps). */
function signatureCheck(
  policy: TokenPolicy,
  log?: Logger,
): { verify: (token: string) => unknown; keyStore?: JwksKeyStore } {
  const claims = {
    requiredClaims: ['exp', ...(policy.issuer ? ['iss'] : []), ...(policy.audience ? ['aud'] : [])],
    ...(policy.issuer ? { allowedIss: policy.issuer } : {}),
    ...(policy.audience ? { allowedAud: policy.audience } : {}),
    cache: 10_000,
  };
  const { key } = policy;
  if (key.algorithm !== 'JWKS') {
    const material = key.algorithm === 'HS256' ? key.secret : key.publicKey;
    return { verify: createVerifier({ ...claims, key: material, algorithms: [key.algorithm] }) };
  }
  const keyStore = new JwksKeyStore({
    url: key.url,
    maxAgeMs: key.maxAgeSeconds * 1000,
    staleMaxMs: key.staleMaxSeconds * 1000,
    unknownKidIntervalMs: key.refreshMinSeconds * 1000,
    log,
  }).reportReachability();
  const verify = createVerifier({ ...claims, key: keyStore.resolve, algorithms: ['RS256', 'ES256'] });
  return {
    keyStore,
    // The store is asked first: fast-jwt's cache of verified tokens would outlive keys past their stale limit.
    verify: async (token) => {
      await keyStore.usable();
      return verify(token);
    },
  };
}

/**
 * The verifier of a policy: signature pinned to the key's algorithms (so
 * `alg: none` and algorithm swaps fail), `exp` required, `iss` and `aud` when
 * the policy names them, then the claims (token-claims.ts): `sub` and a role
 * required, `store_ids` well formed, `iat` not ahead of the clock beyond the
 * skew, and no lifetime beyond the maximum. Verified tokens are cached, so
 * the signature of a token used again is not checked again (fast-jwt still
 * checks its expiry on every use); a JWKS is asked only for a key it lacks.
 */
export function createTokenVerifier(policy: TokenPolicy, { log }: { log?: Logger } = {}): TokenVerifier {
  const { verify, keyStore } = signatureCheck(policy, log);
  const verifier: TokenVerifier = async (authorization) => {
    if (!authorization) throw new TokenRefused(TOKEN_MESSAGES.missing);
    const token = BEARER.exec(authorization)?.[1];
    if (!token || token.length > Limits.tokenMaxLength) throw new TokenRefused(TOKEN_MESSAGES.invalid);
    let claims: unknown;
    try {
      claims = await verify(token);
    } catch (err) {
      throw new TokenRefused(
        (err as { code?: string }).code === 'FAST_JWT_EXPIRED' ? TOKEN_MESSAGES.expired : TOKEN_MESSAGES.invalid,
      );
    }
    return { caller: callerOfClaims(claims, policy), token };
  };
  if (keyStore) verifier.identityProvider = () => keyStore.status();
  return verifier;
}
