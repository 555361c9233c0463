/**
 * The embedded database asks who is there: it listens on loopback and on a
 * Unix socket in the data folder (what the services use) only, every
 * connection must authenticate as the stack's user (SCRAM, FerretDB's
 * experimental authentication, patch 0017), whose password is made on the
 * first start into the data folder, readable by its owner only.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import {
  DB_PASSWORD_FILE,
  ferretDbBinary,
  freeListeningPort,
  startLocalInfrastructure,
  type Infrastructure,
} from '@clinic/devstack';

let dir: string;
let infra: Infrastructure;
let owner: MongoClient;

/** The stack's URL without its user (over the socket the services use), or its TCP address, which tools use. */
const anonymousUrl = (over: 'socket' | 'tcp' = 'socket') => {
  const url = new URL(infra.mongoUrl);
  url.username = '';
  url.password = '';
  if (over === 'tcp') url.host = tcpAddress();
  return url.toString();
};
/** The address the server was told to take TCP connections on. */
const tcpAddress = () => {
  const args = infra.db!.spec.args;
  return args[args.indexOf('--listen') + 1]!;
};
const socketPath = () => join(dir, 'ferretdb.sock');
/** The stack's user, for another server started on its data folder. */
const ownUser = () => ['--auth-user', 'clinic', '--auth-password-file', join(dir, DB_PASSWORD_FILE)];
/** How many bills a new connection with the stack's URL counts. */
async function billsOverStackUrl(): Promise<number> {
  const client = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000 });
  try {
    return await client.db('clinic_billing').collection('bills').countDocuments();
  } finally {
    await client.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-db-auth-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  owner = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000 });
  await owner
    .db('clinic_billing')
    .collection('bills')
    .insertOne({ _id: 'b1' as never, grand_total_cents: 85000 });
});
afterAll(async () => {
  await owner?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('makes its password on the first start, readable by its owner only, and the URL carries it', () => {
  const file = join(dir, DB_PASSWORD_FILE);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const password = readFileSync(file, 'utf8').trim();
  expect(password).toMatch(/^[\w-]{43}$/);
  const url = new URL(infra.mongoUrl);
  expect({
    host: decodeURIComponent(url.hostname),
    user: url.username,
    password: decodeURIComponent(url.password),
  }).toEqual({
    host: socketPath(),
    user: 'clinic',
    password,
  });
  expect(tcpAddress()).toMatch(/^127\.0\.0\.1:\d+$/);
});

it.each(['socket', 'tcp'] as const)(
  'refuses every read and write of an anonymous connection over %s, and changes nothing',
  async (over) => {
    const anonymous = await MongoClient.connect(anonymousUrl(over), { serverSelectionTimeoutMS: 2000 });
    try {
      const bills = anonymous.db('clinic_billing').collection('bills');
      await expect(bills.updateOne({ _id: 'b1' as never }, { $set: { grand_total_cents: 1 } })).rejects.toThrow(
        /requires authentication/,
      );
      await expect(bills.insertOne({ forged: true })).rejects.toThrow(/requires authentication/);
      await expect(bills.find().toArray()).rejects.toThrow(/requires authentication/);
      await expect(anonymous.db('admin').command({ listDatabases: 1 })).rejects.toThrow(/requires authentication/);
    } finally {
      await anonymous.close();
    }
    expect(await owner.db('clinic_billing').collection('bills').find().toArray()).toEqual([
      { _id: 'b1', grand_total_cents: 85000 },
    ]);
  },
);

/** The permission bits of each file and folder that holds the data: DATA_DIR, its database folder, the SQLite files. */
function dataModes(): Record<string, string> {
  const dbDir = join(dir, 'ferretdb');
  const files = readdirSync(dbDir).filter((name) => name.includes('.sqlite'));
  expect(files).toEqual(expect.arrayContaining(['clinic_billing.sqlite']));
  const paths = ['.', 'ferretdb', 'nats', 'ferretdb.sock', ...files.map((name) => join('ferretdb', name))];
  return Object.fromEntries(paths.map((path) => [path, (statSync(join(dir, path)).mode & 0o777).toString(8)]));
}
const ownerOnly = (modes: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(modes).map(([path]) => [
      path,
      path.endsWith('.sqlite') || path.includes('.sqlite-') ? '600' : '700',
    ]),
  );

it('keeps the data folder, the database folder and its SQLite files to their owner alone', () => {
  const modes = dataModes();
  expect(modes).toEqual(ownerOnly(modes));
});

it('takes back the files and folders of a data folder made before that rule, when the database starts', async () => {
  await infra.db!.stop();
  chmodSync(join(dir, 'ferretdb'), 0o755);
  for (const name of readdirSync(join(dir, 'ferretdb'))) chmodSync(join(dir, 'ferretdb', name), 0o644);
  await infra.startDb();
  const modes = dataModes();
  expect(modes).toEqual(ownerOnly(modes));
});

it('refuses a wrong password', async () => {
  const url = new URL(infra.mongoUrl);
  url.password = 'not-the-password';
  await expect(MongoClient.connect(url.toString(), { serverSelectionTimeoutMS: 2000 })).rejects.toThrow(
    /Authentication failed/,
  );
});

it('takes its socket back after it was killed, and never the socket of a server that runs', async () => {
  infra.db!.signal('SIGKILL');
  await infra.db!.waitForExit();
  // The killed server left its socket behind: the next one binds it all the same.
  expect(statSync(socketPath()).isSocket()).toBe(true);
  await infra.startDb();
  const run = spawnSync(
    ferretDbBinary(),
    ['--listen', '127.0.0.1:0', '--listen-unix', socketPath(), '--data-dir', join(dir, 'elsewhere'), ...ownUser()],
    { encoding: 'utf8', timeout: 10_000 },
  );
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain('another server listens on it');
  expect(await billsOverStackUrl()).toBe(1);
});

it('will not count another server on its socket as its own: a second stack on the same data folder fails', async () => {
  const second = startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs-second'), natsUrl: infra.natsUrl });
  await expect(second).rejects.toThrow(/another server listens on it/);
});

it('keeps its user across a restart', async () => {
  await infra.db!.stop();
  await infra.startDb();
  expect(await billsOverStackUrl()).toBe(1);
});

it('will not listen on an address other machines reach', async () => {
  const port = await freeListeningPort();
  const run = spawnSync(ferretDbBinary(), ['--listen', `0.0.0.0:${port}`, '--data-dir', join(dir, 'elsewhere')], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain('the embedded database listens on a loopback address only');
});

it('will not start without its user: no anonymous database, whatever the command line', () => {
  const run = spawnSync(ferretDbBinary(), ['--listen', '127.0.0.1:0', '--data-dir', join(dir, 'elsewhere')], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain('--auth-user and --auth-password-file are required');
});

it('serves Go profiling on loopback only', () => {
  const args = ['--listen', '127.0.0.1:0', '--data-dir', join(dir, 'elsewhere'), ...ownUser()];
  const run = spawnSync(ferretDbBinary(), [...args, '--debug-addr', '0.0.0.0:0'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain('profiling listens on a loopback address only');
});

it("refuses its own user every way of managing users (patch 0021): no command, no write to the users' collection", async () => {
  const admin = owner.db('admin');
  for (const command of [
    { createUser: 'intruder', pwd: 'intruder-password', roles: [] },
    { updateUser: 'clinic', pwd: 'another-password' },
    { dropUser: 'clinic' },
    { usersInfo: 1 },
  ])
    await expect(admin.command(command)).rejects.toThrow(/no such command/);
  const users = admin.collection('system.users');
  await expect(users.insertOne({ _id: 'admin.intruder' as never, user: 'intruder' })).rejects.toThrow(
    /on the admin database is not allowed/,
  );
  await expect(users.find().toArray()).rejects.toThrow(/on the admin database is not allowed/);
  await expect(users.deleteMany({})).rejects.toThrow(/on the admin database is not allowed/);
  await expect(admin.command({ renameCollection: 'clinic_billing.bills', to: 'admin.system.users' })).rejects.toThrow(
    /on the admin database is not allowed/,
  );
  // What the driver and tools ask of the admin database still answers.
  expect((await admin.command({ listDatabases: 1 })).databases.length).toBeGreaterThan(0);
  expect((await admin.command({ ping: 1 })).ok).toBe(1);
  expect(await billsOverStackUrl()).toBe(1);
});

// Last: the stack's URL carries the old password after it.
it('takes a new password at the next start, and the old one no longer opens it', async () => {
  const file = join(dir, DB_PASSWORD_FILE);
  const old = readFileSync(file, 'utf8').trim();
  await infra.db!.stop();
  writeFileSync(file, 'a-new-password-for-the-next-start\n', { mode: 0o600 });
  await infra.startDb();
  const withPassword = (password: string) => {
    const url = new URL(infra.mongoUrl);
    url.password = password;
    return url.toString();
  };
  await expect(MongoClient.connect(withPassword(old), { serverSelectionTimeoutMS: 2000 })).rejects.toThrow(
    /Authentication failed/,
  );
  const client = await MongoClient.connect(withPassword('a-new-password-for-the-next-start'), {
    serverSelectionTimeoutMS: 2000,
  });
  try {
    expect(await client.db('clinic_billing').collection('bills').countDocuments()).toBe(1);
  } finally {
    await client.close();
  }
});
