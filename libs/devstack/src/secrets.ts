/**
 * Secrets a local stack makes for itself on its first start and keeps in its
 * data folder, readable by their owner only: nothing on a default install
 * trusts a value written in the repository.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROCESS_USERS, type OutsideSystem } from '@clinic/contracts';
import { installationSystems } from './outside-systems';
import { passwordVariable } from './nats-config';
import { REPO_ROOT } from './paths';

/** The HS256 secret of a stack without JWT_SECRET, JWT_PUBLIC_KEY or JWT_JWKS_URL. */
export const JWT_SECRET_FILE = 'jwt-secret';
/** The password of the embedded database's user. */
export const DB_PASSWORD_FILE = 'ferretdb-password';

/** The password of a NATS user (nats-server's and the user's processes'), unless NATS_<USER>_PASSWORD is set. */
export const natsPasswordFile = (user: string): string => `nats-${user}-password`;

/**
 * Every secret a stack may have made for itself: a backup carries them, so that its restore opens its database
 * and the tools and systems given its NATS passwords still connect.
 */
export const OWN_SECRET_FILES: readonly string[] = [
  JWT_SECRET_FILE,
  DB_PASSWORD_FILE,
  ...PROCESS_USERS.map(natsPasswordFile),
  ...installationSystems().map((s) => natsPasswordFile(s.name)),
];

/** DATA_DIR, or `.data` in the repository: where npm start keeps its data, and npm run token finds its secret. */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.DATA_DIR || join(REPO_ROOT, '.data'));
}

/**
 * Makes `dir` (0700) or checks the one there: it must belong to this user and be writable by no other (anyone who
 * could write in it could plant a secret of theirs, or a link that catches ours); a folder others may read
 * (made before this rule) is taken back. DATA_DIR holds the database's files, the secrets and the logs.
 */
export function privateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const found = statSync(dir);
  const uid = process.getuid?.();
  if (!found.isDirectory()) throw new Error(`${dir} is not a folder`);
  if (uid !== undefined && found.uid !== uid) {
    throw new Error(`${dir} belongs to another user (uid ${found.uid}): use a data folder of this user's own`);
  }
  if ((found.mode & 0o002) !== 0) {
    throw new Error(`${dir} may be written by any user: make it the owner's alone (chmod 700) and check what is in it`);
  }
  if ((found.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

/** The secret kept in `dataDir/name`, or undefined when there is none yet; refuses one this user does not own. */
export function readOwnSecret(dataDir: string, name: string): string | undefined {
  const path = join(dataDir, name);
  try {
    const found = lstatSync(path);
    const uid = process.getuid?.();
    if (!found.isFile() || (uid !== undefined && found.uid !== uid)) {
      throw new Error(`${path} is not a file of this user's own (a link, or another user's): remove it`);
    }
    // Made before this rule, or copied without its mode: only its owner may read it.
    if ((found.mode & 0o077) !== 0) chmodSync(path, 0o600);
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The secret kept in `dataDir/name`, made (32 random bytes, base64url, mode 0600) on first use. */
export function ownSecret(dataDir: string, name: string): string {
  const existing = readOwnSecret(privateDir(dataDir), name);
  if (existing) return existing;
  const path = join(dataDir, name);
  // Written aside under a name nobody can guess, as a new file (never through a link or into another's file), then
  // linked into place: nobody reads it half-written, and a second process starting at the same time finds the
  // first one's (the link fails) and uses it. Either way it is read back as the file now in place, checked.
  const aside = `${path}.${randomBytes(9).toString('base64url')}.tmp`;
  writeFileSync(aside, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(aside, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(aside, { force: true });
  }
  const secret = readOwnSecret(dataDir, name);
  if (!secret) throw new Error(`${path} is empty: remove it`);
  return secret;
}

/**
 * Every NATS user's password: NATS_<USER>_PASSWORD, else the stack's own in `dataDir` (`nats-<user>-password`,
 * made on the first start when `make`; a tool connecting to a running stack only reads them).
 */
export function natsPasswords(
  dataDir: string,
  options: { make?: boolean; env?: NodeJS.ProcessEnv; systems?: readonly OutsideSystem[] } = {},
): Record<string, string> {
  const env = options.env ?? process.env;
  const systems = options.systems ?? installationSystems(env);
  return Object.fromEntries(
    [...PROCESS_USERS, ...systems.map((s) => s.name)].map((user) => [
      user,
      options.make
        ? env[passwordVariable(user)] || ownSecret(dataDir, natsPasswordFile(user))
        : natsPasswordOf(user, dataDir, env),
    ]),
  );
}

/** A NATS user's password for connecting to a running stack: NATS_<USER>_PASSWORD, else the one in `dataDir`. */
export function natsPasswordOf(user: string, dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const users = [...PROCESS_USERS, ...installationSystems(env).map((s) => s.name)];
  const known = users.includes(user) ? user : undefined;
  if (!known) throw new Error(`${user} is not a NATS user of this stack: set NATS_PASSWORD with NATS_USER`);
  const password = env[passwordVariable(known)] || readOwnSecret(dataDir, natsPasswordFile(known));
  if (!password) {
    throw new Error(
      `No NATS password for ${user}: set ${passwordVariable(known)}, or DATA_DIR to the folder of the npm start that made it (${dataDir} has none)`,
    );
  }
  return password;
}

/** Whether the environment names a token key, so that no secret of the stack's own is needed. */
export function hasTokenKey(env: Record<string, string | undefined>): boolean {
  return Boolean(env.JWT_SECRET || env.JWT_PUBLIC_KEY || env.JWT_JWKS_URL);
}
