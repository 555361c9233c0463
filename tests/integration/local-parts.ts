/**
 * A file's own NATS server and embedded database in a temporary folder, with
 * one NATS user's connection and one database: what the integration files
 * that drive a storage layer and its outbox directly stand on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from 'nats';
import { MongoClient, type Db } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { connectNats, type Logger } from '@clinic/service-kit/internal';

export interface LocalParts {
  dir: string;
  infra: Infrastructure;
  nc: NatsConnection;
  mongo: MongoClient;
  db: Db;
}

/** Started for `name` (the folder's and the connection's name), connected as `user` to database `dbName`. */
export async function startLocalParts(
  name: string,
  user: keyof Infrastructure['natsPasswords'],
  dbName: string,
  log: Logger,
): Promise<LocalParts> {
  const dir = mkdtempSync(join(tmpdir(), `clinic-${name}-`));
  const parts: Partial<LocalParts> = { dir };
  try {
    parts.infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
    const { natsUrl, natsPasswords, mongoUrl } = parts.infra;
    parts.nc = await connectNats({ url: natsUrl, user, password: natsPasswords[user] }, { name: `${name}-test`, log });
    parts.mongo = await MongoClient.connect(mongoUrl, { serverSelectionTimeoutMS: 2000 });
    return { ...(parts as LocalParts), db: parts.mongo.db(dbName) };
  } catch (err) {
    await stopLocalParts(parts);
    throw err;
  }
}

/** Closes what was started, whatever was, and removes the folder. */
export async function stopLocalParts(parts: Partial<LocalParts> | undefined): Promise<void> {
  await parts?.nc?.close();
  await parts?.mongo?.close();
  await parts?.infra?.stop();
  if (parts?.dir) rmSync(parts.dir, { recursive: true, force: true });
}
