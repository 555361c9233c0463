/**
 * The keys of an identity provider (Keycloak, Entra ID...): its JSON Web Key
 * Set, fetched and cached by jose's createRemoteJWKSet. A token whose `kid`
 * the cached set lacks makes it fetch again, at most once per cooldown, so a
 * key rotation is picked up without letting forged `kid`s hammer the
 * provider. The key is handed to fast-jwt as PEM.
 */
import { KeyObject, type webcrypto } from 'node:crypto';

export interface JwksOptions {
  url: string;
  /** The least time between two fetches an unknown `kid` may cause. */
  refreshMinSeconds: number;
}

/** What fast-jwt's key function receives: the token's header. */
interface DecodedToken {
  header: { alg?: string; kid?: string };
}

const FETCH_TIMEOUT_MS = 5_000;
/** Keys are fetched again after this long even when every `kid` is known, so that a removed key stops verifying. */
const KEYS_MAX_AGE_MS = 10 * 60_000;

/** fast-jwt's key function for the provider's signing keys: the PEM of the key named by the token's header. */
export function jwksKeyResolver(options: JwksOptions): (decoded: DecodedToken) => Promise<string> {
  // jose is an ECMAScript module: loaded once, on the first token, by the process that uses a JWKS.
  const keySet = import('jose').then(({ createRemoteJWKSet }) =>
    createRemoteJWKSet(new URL(options.url), {
      cooldownDuration: options.refreshMinSeconds * 1000,
      cacheMaxAge: KEYS_MAX_AGE_MS,
      timeoutDuration: FETCH_TIMEOUT_MS,
    }),
  );
  const pems = new WeakMap<object, string>();
  return async ({ header }) => {
    const key = await (await keySet)({ alg: header.alg, kid: header.kid });
    let pem = pems.get(key);
    if (!pem) {
      const object = key instanceof KeyObject ? key : KeyObject.from(key as webcrypto.CryptoKey);
      pem = object.export({ type: 'spki', format: 'pem' }).toString();
      pems.set(key, pem);
    }
    return pem;
  };
}
