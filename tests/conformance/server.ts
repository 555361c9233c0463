/**
 * The server the conformance suite runs against: the one MONGO_URL names (a
 * MongoDB 7, say: `MONGO_URL=mongodb://... npm run test:conformance`), or else
 * the embedded FerretDB, started here as the other tests start it. Each test
 * file works in a database of its own, dropped before and after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { isFerretDB } from '@clinic/service-kit/internal';

export interface ConformanceServer {
  db: Db;
  /** Which server answers: only for messages and the embedded server's own option, never for an expected result. */
  ferretdb: boolean;
  stop(): Promise<void>;
}

export async function openServer(suite: string): Promise<ConformanceServer> {
  let infra: Infrastructure | undefined;
  let dir: string | undefined;
  let url = process.env.MONGO_URL;
  if (!url) {
    dir = mkdtempSync(join(tmpdir(), 'clinic-conformance-'));
    infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
    url = infra.mongoUrl;
  }
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 5_000 });
  const db = client.db(`conformance_${suite}`);
  await db.dropDatabase();
  return {
    db,
    ferretdb: await isFerretDB(db),
    stop: async () => {
      await db.dropDatabase().catch(() => undefined);
      await client.close();
      await infra?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The error a promise was refused with, for asserting its code and fields. */
export async function refusal(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    return err as Record<string, unknown>;
  }
  throw new Error('expected the server to refuse');
}
