/**
 * The stack's own secrets and its data folder on a real file system: made for
 * their owner alone, never written through a link another user planted, and
 * never taken from a folder or a file that is not the owner's own.
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATS_USERS } from '@clinic/contracts';
import {
  JWT_SECRET_FILE,
  natsPasswordFile,
  natsPasswordOf,
  natsPasswords,
  OWN_SECRET_FILES,
  ownSecret,
  privateDir,
  REPO_ROOT,
  readOwnSecret,
} from '../src';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'clinic-secrets-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;
/** Only root can give a folder to another user. */
const asRoot = process.getuid?.() === 0 ? it : it.skip;

it('makes the data folder 0700 and the secret 0600, and gives the same secret on every later start', () => {
  const dataDir = join(root, 'data');
  const secret = ownSecret(dataDir, JWT_SECRET_FILE);
  expect(secret).toMatch(/^[\w-]{43}$/);
  expect({ folder: mode(dataDir), secret: mode(join(dataDir, JWT_SECRET_FILE)) }).toEqual({
    folder: 0o700,
    secret: 0o600,
  });
  expect(ownSecret(dataDir, JWT_SECRET_FILE)).toBe(secret);
});

it('takes back a data folder others may read (made before this rule)', () => {
  const dataDir = join(root, 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  privateDir(dataDir);
  expect(mode(dataDir)).toBe(0o700);
});

it('refuses a data folder any user may write in: one of them could have planted a secret or a link', () => {
  const dataDir = join(root, 'shared');
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o777);
  expect(() => ownSecret(dataDir, JWT_SECRET_FILE)).toThrow(/may be written by any user/);
  expect(() => privateDir(dataDir)).toThrow(/may be written by any user/);
});

asRoot('refuses a data folder that belongs to another user', () => {
  const dataDir = join(root, 'theirs');
  mkdirSync(dataDir, { mode: 0o700 });
  chownSync(dataDir, 65534, 65534);
  expect(() => ownSecret(dataDir, JWT_SECRET_FILE)).toThrow(/belongs to another user/);
});

asRoot("refuses a secret file that is another user's, rather than sign with a key someone else chose", () => {
  const dataDir = privateDir(join(root, 'data'));
  writeFileSync(join(dataDir, JWT_SECRET_FILE), 'chosen-by-someone-else\n', { mode: 0o600 });
  chownSync(join(dataDir, JWT_SECRET_FILE), 65534, 65534);
  expect(() => ownSecret(dataDir, JWT_SECRET_FILE)).toThrow(/not a file of this user's own/);
});

it('never reads or writes the secret through a link planted where it goes', () => {
  const dataDir = privateDir(join(root, 'data'));
  const elsewhere = join(root, 'elsewhere');
  writeFileSync(elsewhere, 'known-to-whoever-planted-the-link\n');
  symlinkSync(elsewhere, join(dataDir, JWT_SECRET_FILE));
  expect(() => ownSecret(dataDir, JWT_SECRET_FILE)).toThrow(/not a file of this user's own/);
  expect(() => readOwnSecret(dataDir, JWT_SECRET_FILE)).toThrow(/not a file of this user's own/);
  expect(readFileSync(elsewhere, 'utf8')).toBe('known-to-whoever-planted-the-link\n');
});

it('writes the new secret aside under a name nobody can guess, as a new file, and leaves nothing aside', () => {
  const dataDir = privateDir(join(root, 'data'));
  // A link where the secret was once written aside (its name was the process id) catches nothing now.
  const trap = join(root, 'trap');
  symlinkSync(trap, join(dataDir, `${JWT_SECRET_FILE}.${process.pid}.tmp`));
  const secret = ownSecret(dataDir, JWT_SECRET_FILE);
  expect(() => readFileSync(trap)).toThrow(/ENOENT/);
  expect(readFileSync(join(dataDir, JWT_SECRET_FILE), 'utf8')).toBe(`${secret}\n`);
});

it('leaves no NATS password in the repository: each stack makes its own', () => {
  // The strings every npm start once used for every user (written in parts here, so that this file holds none).
  const former = NATS_USERS.map((user) => ['dev', user, 'password'].join('-'));
  const found = spawnSync('git', ['-C', REPO_ROOT, 'grep', '-l', '-F', ...former.flatMap((p) => ['-e', p])], {
    encoding: 'utf8',
  });
  expect({ status: found.status, files: found.stdout }).toEqual({ status: 1, files: '' });
  expect(OWN_SECRET_FILES).toEqual(expect.arrayContaining(NATS_USERS.map(natsPasswordFile)));
});

it('gives a tool the password npm start made, or says where it is missing: never one of its own', () => {
  const dataDir = join(root, 'data');
  const made = natsPasswords(dataDir, { make: true });
  expect(natsPasswords(dataDir)).toEqual(made);
  expect(natsPasswordOf('ops', dataDir, { NATS_OPS_PASSWORD: 'from-the-environment' })).toBe('from-the-environment');
  expect(() => natsPasswordOf('ops', join(root, 'elsewhere'), {})).toThrow(
    /No NATS password for ops: set NATS_OPS_PASSWORD, or DATA_DIR/,
  );
  expect(() => statSync(join(root, 'elsewhere'))).toThrow(/ENOENT/);
});
