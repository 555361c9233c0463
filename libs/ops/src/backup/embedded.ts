/**
 * `npm run backup` and `npm run restore` for the embedded default (docs/operations.md:
 * Backups): the databases, copied while the services write (clinic-ferretdb
 * backup: SQLite's VACUUM INTO), and every JetStream stream, through the
 * server's snapshot API. The order is chosen so that the restored parts agree:
 *
 * 1. the events streams, with their consumers (other systems' read positions):
 *    every event they hold describes a change the database copy, taken after,
 *    holds too; none tells of a bill the restored system does not have;
 * 2. the databases (bills, their numbers' hints, id counters, outbox, read models);
 * 3. the reference stream, without consumers: it holds every record the
 *    database copy applied, and each service, finding no consumer, reads it
 *    again from the start after the restore (records apply once, by sequence).
 *
 * What this order leaves out: the events published while the databases were
 * being copied whose outbox entries were already gone (their changes are in
 * the restored database; readers miss those events).
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect, type ConnectionOptions, type NatsConnection } from 'nats';
import { eventStreamOf, inboxPrefixOf, REF_STREAM, SERVICE_NAMES } from '@clinic/contracts';
import { connectNats, createLogger, type NatsSettings } from '@clinic/service-kit';
import { restoreStream, snapshotStream, type StreamSnapshot } from './jetstream-snapshot';

const run = promisify(execFile);

/** What a backup and a restore need of the installation they copy; tools/cli gives the embedded stack's. */
export interface EmbeddedInstallation {
  /** clinic-ferretdb, whose `backup` command copies each database (looked for only when a backup needs it). */
  ferretDbBinary(): string;
  /** The secrets the installation made for itself in its data folder: a backup carries them. */
  secretFiles: readonly string[];
  /** Makes `dir` (0700) or checks the one there, refusing a folder another user could write in. */
  privateDir(dir: string): string;
  /** A nats-server for the restore alone (loopback, a password of its own) on `natsDir/jetstream`. */
  startRestoreNats(natsDir: string): Promise<RestoreNats>;
}

export interface RestoreNats {
  connect: ConnectionOptions;
  /** Stops the server and removes what it needed only while running (its configuration). */
  stop(): Promise<void>;
}

export interface BackupManifest {
  format: 1;
  started_at: string;
  finished_at: string;
  databases: Array<{ file: string; bytes: number; started: string; ms: number }>;
  streams: Array<{ name: string; messages: number; last_seq: number; consumers: boolean; bytes: number }>;
  /** The stack's own secrets (secrets.ts) it carries: the restored database's user logs in with its password. */
  secrets: string[];
}

const EVENT_STREAMS = SERVICE_NAMES.map((s) => eventStreamOf(s).name);

/** Copies each of the stack's own secrets that `from` holds into `to`, readable by their owner only. */
function copySecrets(from: string, to: string, names: readonly string[]): string[] {
  const copied = names.filter((name) => existsSync(join(from, name)));
  for (const name of copied) {
    copyFileSync(join(from, name), join(to, name));
    chmodSync(join(to, name), 0o600);
  }
  return copied;
}

function isEmptyDir(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

function writeSnapshot(dir: string, snapshot: StreamSnapshot): void {
  writeFileSync(
    join(dir, `${snapshot.config.name}.json`),
    JSON.stringify({ config: snapshot.config, state: snapshot.state }),
    { mode: 0o600 },
  );
  // The events hold patient data: as private as the databases' copies.
  writeFileSync(join(dir, `${snapshot.config.name}.snapshot`), snapshot.data, { mode: 0o600 });
}

function readSnapshot(dir: string, name: string): StreamSnapshot {
  const meta = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as Omit<StreamSnapshot, 'data'>;
  return { ...meta, data: readFileSync(join(dir, `${name}.snapshot`)) };
}

/** An online backup of the stack whose data is in `dataDir`, into the new folder `outDir`. */
export async function backupEmbedded(options: {
  dataDir: string;
  outDir: string;
  nats: NatsSettings;
  installation: EmbeddedInstallation;
  say?: (line: string) => void;
}): Promise<BackupManifest> {
  const say = options.say ?? (() => undefined);
  if (!isEmptyDir(options.outDir)) throw new Error(`${options.outDir} is not empty: back up into a new folder`);
  const dbDir = join(options.dataDir, 'ferretdb');
  if (!existsSync(dbDir)) throw new Error(`${dbDir} does not exist: is DATA_DIR the stack's data folder?`);
  const existed = existsSync(options.outDir);
  try {
    return await backupInto(options, dbDir, say);
  } catch (err) {
    // A failed backup leaves nothing behind that looks like one.
    if (existed)
      for (const entry of readdirSync(options.outDir))
        rmSync(join(options.outDir, entry), { recursive: true, force: true });
    else rmSync(options.outDir, { recursive: true, force: true });
    throw err;
  }
}

async function backupInto(
  options: { outDir: string; dataDir: string; nats: NatsSettings; installation: EmbeddedInstallation },
  dbDir: string,
  say: (line: string) => void,
): Promise<BackupManifest> {
  mkdirSync(join(options.outDir, 'nats'), { recursive: true, mode: 0o700 });
  const startedAt = new Date().toISOString();
  const nc = await connectNats(options.nats, {
    name: 'backup',
    log: createLogger('backup', 'warn'),
    waitForServer: false,
  });
  const streams: BackupManifest['streams'] = [];
  const snapshot = async (name: string, consumers: boolean) => {
    const taken = await snapshotStream(nc, name, {
      withConsumers: consumers,
      inboxPrefix: options.nats.user ? inboxPrefixOf(options.nats.user) : undefined,
    });
    writeSnapshot(join(options.outDir, 'nats'), taken);
    const state = taken.state as { messages: number; last_seq: number };
    streams.push({ name, messages: state.messages, last_seq: state.last_seq, consumers, bytes: taken.data.length });
    say(`stream ${name}: ${state.messages} messages, up to sequence ${state.last_seq}`);
  };
  try {
    for (const name of EVENT_STREAMS) await snapshot(name, true);
    const copied = await run(
      options.installation.ferretDbBinary(),
      ['backup', dbDir, join(options.outDir, 'ferretdb')],
      {
        maxBuffer: 1 << 20,
      },
    );
    const databases = copied.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as BackupManifest['databases'][number]);
    for (const db of databases) say(`database ${db.file}: ${db.bytes} bytes in ${db.ms} ms`);
    await snapshot(REF_STREAM.name, false);
    const secrets = copySecrets(options.dataDir, options.outDir, options.installation.secretFiles);
    const manifest: BackupManifest = {
      format: 1,
      started_at: startedAt,
      finished_at: new Date().toISOString(),
      databases,
      streams,
      secrets,
    };
    // Written last: a folder without it is an unfinished backup, which restore refuses.
    writeFileSync(join(options.outDir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    await nc.close();
  }
}

/**
 * Restores a backup into an empty data folder: the databases are copied in,
 * and the streams are restored through a nats-server started for that alone
 * (loopback, a user and password of its own), then stopped. `npm start` on
 * that folder then runs the system as it was at the backup (a single NATS
 * server: the streams are restored with one replica; a cluster raises them).
 */
export async function restoreEmbedded(options: {
  backupDir: string;
  dataDir: string;
  installation: EmbeddedInstallation;
  say?: (line: string) => void;
}): Promise<BackupManifest> {
  const { installation } = options;
  const say = options.say ?? (() => undefined);
  const manifestFile = join(options.backupDir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new Error(`${options.backupDir} holds no finished backup (no manifest.json)`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as BackupManifest;
  const dbDir = join(options.dataDir, 'ferretdb');
  const natsDir = join(options.dataDir, 'nats');
  if (!isEmptyDir(dbDir) || !isEmptyDir(natsDir)) {
    throw new Error(`${options.dataDir} already holds data: restore into an empty DATA_DIR`);
  }
  installation.privateDir(options.dataDir);
  installation.privateDir(dbDir);
  installation.privateDir(natsDir);
  for (const name of copySecrets(options.backupDir, options.dataDir, manifest.secrets ?? [])) say(`${name} restored`);
  for (const db of manifest.databases) {
    copyFileSync(join(options.backupDir, 'ferretdb', db.file), join(dbDir, db.file));
    chmodSync(join(dbDir, db.file), 0o600);
    say(`database ${db.file} restored`);
  }

  const server = await installation.startRestoreNats(natsDir);
  let nc: NatsConnection | undefined;
  try {
    nc = await connect(server.connect);
    for (const stream of manifest.streams) {
      const snapshot = readSnapshot(join(options.backupDir, 'nats'), stream.name);
      // One server takes one replica; a cluster started on this folder raises it (streamReplicas).
      snapshot.config.num_replicas = 1;
      await restoreStream(nc, snapshot);
      say(`stream ${stream.name} restored: ${stream.messages} messages`);
    }
  } finally {
    await nc?.close();
    await server.stop();
  }
  return manifest;
}
