import { join } from 'node:path';
import { createSigner } from 'fast-jwt';
import { JWT_SECRET_FILE, readOwnSecret } from './secrets';

export interface TokenRequest {
  sub: number | string;
  role: string;
  /** Lifetime in seconds. */
  expiresInSeconds?: number;
  /** The branches the token is limited to (its `store_ids` claim); absent: every branch. */
  storeIds?: readonly number[];
}

export interface SigningKey {
  algorithm: 'HS256' | 'RS256';
  key: string;
}

/**
 * The signing key of the running configuration: JWT_PRIVATE_KEY (RS256), else
 * JWT_SECRET, else the secret npm start made in `dataDir`; null when there is
 * none yet, or when tokens come from elsewhere (a public key without its
 * private key, or an identity provider).
 */
export function signingKeyOf(dataDir: string, env: NodeJS.ProcessEnv = process.env): SigningKey | null {
  if (env.JWT_PRIVATE_KEY) return { algorithm: 'RS256', key: env.JWT_PRIVATE_KEY.replace(/\\n/g, '\n') };
  if (env.JWT_JWKS_URL || env.JWT_PUBLIC_KEY) return null;
  if (env.JWT_SECRET) return { algorithm: 'HS256', key: env.JWT_SECRET };
  const own = readOwnSecret(dataDir, JWT_SECRET_FILE);
  return own ? { algorithm: 'HS256', key: own } : null;
}

/** Where a stack without a configured key keeps its own secret. */
export const ownSecretPath = (dataDir: string) => join(dataDir, JWT_SECRET_FILE);

export function signToken(request: TokenRequest, signing: SigningKey): string {
  const sign = createSigner({
    key: signing.key,
    algorithm: signing.algorithm,
    expiresIn: (request.expiresInSeconds ?? 3600) * 1000,
  });
  const branches = request.storeIds === undefined ? {} : { store_ids: [...request.storeIds] };
  return sign({ sub: request.sub, role: request.role, ...branches });
}

/** "1,2" -> [1, 2]: branch ids for `--stores` (an empty text: no branch at all). */
export function parseStoreIds(text: string): number[] {
  const ids = text.trim() === '' ? [] : text.split(',').map((part) => part.trim());
  const bad = ids.filter((id) => !/^[1-9]\d*$/.test(id) || !Number.isSafeInteger(Number(id)));
  if (bad.length > 0)
    throw new Error(`Invalid --stores "${text}": give branch ids (positive integers) separated by commas, e.g. 1,2`);
  return ids.map(Number);
}

/** "90", "90s", "15m", "12h", "7d" -> seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) throw new Error(`Invalid duration "${text}": use e.g. 90s, 15m, 12h or 7d`);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
