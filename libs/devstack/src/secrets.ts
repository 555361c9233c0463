/**
 * Secrets a local stack makes for itself on its first start and keeps in its
 * data folder, readable by their owner only: nothing on a default install
 * trusts a value written in the repository.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './paths';

/** The HS256 secret of a stack without JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL. */
export const JWT_SECRET_FILE = 'jwt-secret';
/** The password of the embedded database's user. */
export const DB_PASSWORD_FILE = 'ferretdb-password';

/** Every secret a stack may have made for itself: a backup carries them, so that its restore opens its database. */
export const OWN_SECRET_FILES = [JWT_SECRET_FILE, DB_PASSWORD_FILE] as const;

/** DATA_DIR, or `.data` in the repository: where npm start keeps its data, and npm run token finds its secret. */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR || join(REPO_ROOT, '.data'));
}

/** The secret kept in `dataDir/name`, or undefined when there is none yet. */
export function readOwnSecret(dataDir: string, name: string): string | undefined {
  const path = join(dataDir, name);
  try {
    // Made before this rule, or copied without its mode: only its owner may read it.
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The secret kept in `dataDir/name`, made (32 random bytes, base64url, mode 0600) on first use. */
export function ownSecret(dataDir: string, name: string): string {
  const existing = readOwnSecret(dataDir, name);
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  const path = join(dataDir, name);
  // Written aside, then linked into place: nobody reads it half-written, and a second process starting at the
  // same time finds the first one's (the link fails) and uses it.
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, `${secret}\n`, { mode: 0o600 });
  try {
    linkSync(aside, path);
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readOwnSecret(dataDir, name) as string;
    throw err;
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Whether the environment names a token key, so that no secret of the stack's own is needed. */
export function hasTokenKey(env: Record<string, string | undefined>): boolean {
  return Boolean(env.JWT_SECRET || env.JWT_PUBLIC_KEY || env.JWT_JWKS_URL);
}
