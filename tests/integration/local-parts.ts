/**
 * A file's own NATS server and embedded database in a temporary folder, with
 * its streams provisioned, one NATS user's connection and one database: what the integration files
 * that drive a storage layer and its outbox directly stand on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from 'nats';
import { MongoClient, type Db } from 'mongodb';
import { provisionStack, startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { connectNats, type Logger } from '@clinic/service-kit/internal';

export interface LocalParts {
  dir: string;
  infra: Infrastructure;
  nc: NatsConnection;
  mongo: MongoClient;
  db: Db;
  /** Another connection, as `user`; closed with the parts. */
  connect(user: keyof Infrastructure['natsPasswords']): Promise<NatsConnection>;
}

/** Started for `name` (the folder's and the connection's name), connected as `user` to database `dbName`. */
export async function startLocalParts(
  name: string,
  user: keyof Infrastructure['natsPasswords'],
  dbName: string,
  log: Logger,
): Promise<LocalParts> {
  const dir = mkdtempSync(join(tmpdir(), `clinic-${name}-`));
  const others: NatsConnection[] = [];
  const parts: Partial<LocalParts> & { others: NatsConnection[] } = { dir, others };
  try {
    parts.infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
    // The streams and consumers, as npm start makes them before the services: no service user may.
    await provisionStack(parts.infra, {});
    const { natsUrl, natsPasswords, mongoUrl } = parts.infra;
    parts.nc = await connectNats({ url: natsUrl, user, password: natsPasswords[user] }, { name: `${name}-test`, log });
    parts.mongo = await MongoClient.connect(mongoUrl, { serverSelectionTimeoutMS: 2000 });
    const connect = async (other: keyof Infrastructure['natsPasswords']) => {
      const nc = await connectNats(
        { url: natsUrl, user: other, password: natsPasswords[other] },
        { name: `${name}-${other}`, log },
      );
      others.push(nc);
      return nc;
    };
    return { ...(parts as LocalParts), db: parts.mongo.db(dbName), connect };
  } catch (err) {
    await stopLocalParts(parts);
    throw err;
  }
}

/** Closes what was started, whatever was, and removes the folder. */
export async function stopLocalParts(parts: Partial<LocalParts> | undefined): Promise<void> {
  for (const nc of (parts as { others?: NatsConnection[] } | undefined)?.others ?? [])
    if (!nc.isClosed()) await nc.close();
  await parts?.nc?.close();
  await parts?.mongo?.close();
  await parts?.infra?.stop();
  if (parts?.dir) rmSync(parts.dir, { recursive: true, force: true });
}
