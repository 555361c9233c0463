/**
 * What the ferretdb-pushdown e2e files share: their stack, started for each importing file
 * (the beforeAll and afterAll below run in every file that imports this module), its seed and helpers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type Collection, type Db, type Document } from 'mongodb';
import { startLocalInfrastructure, type Infrastructure } from '@clinic/devstack';
import { ensureIndexes } from '@clinic/service-kit/internal';

export interface Row {
  _id: string;
  n: number;
  store: number;
  state: string;
  at: Date;
  amount: number;
  flag: boolean;
  text: string;
  note?: string;
}

export let dir: string;
export let infra: Infrastructure;
export let mongo: MongoClient;
export let db: Db;
export let rows: Collection<Row>;
export const docs: Row[] = [];

export const WORDS = [
  'nimal fernando',
  'ayesha perera',
  '0771234567',
  'lb-20260602-0042',
  'x*y?',
  'Élan',
  'silva',
  '901234567v',
  'a',
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'clinic-pushdown-'));
  infra = await startLocalInfrastructure({ dataDir: dir, logDir: join(dir, 'logs') });
  mongo = await MongoClient.connect(infra.mongoUrl, { serverSelectionTimeoutMS: 2000 });
  db = mongo.db('pushdown_test');
  rows = db.collection<Row>('rows');
  for (let n = 0; n < 600; n++) {
    docs.push({
      _id: String(n),
      n,
      store: n % 3,
      state: n % 7 === 0 ? 'cancelled' : 'active',
      at: new Date(Date.UTC(2090, 0, 1) + (n % 50) * 3_600_000),
      amount: (n * 37) % 1000,
      flag: n % 2 === 0,
      text: `${WORDS[n % WORDS.length]} ${WORDS[(n * 7) % WORDS.length]} ${n}`,
      ...(n % 5 === 0 ? { note: 'unindexed' } : {}),
    });
  }
  // Half before the indexes (built over existing rows), half after (kept by the writes).
  await rows.insertMany(docs.slice(0, 300));
  await rows.createIndexes([{ key: { store: 1, state: 1, at: -1, n: -1 }, name: 'by_store' }]);
  await ensureIndexes(
    rows,
    [{ key: { store: 1, state: 1, at: -1, n: -1, text: 1 }, name: 'by_text', substringSearch: true }],
    db,
  );
  await rows.createIndexes([{ key: { amount: 1, flag: 1 }, name: 'by_amount' }]);
  await rows.insertMany(docs.slice(300));
});
afterAll(async () => {
  await mongo?.close();
  await infra?.stop();
  rmSync(dir, { recursive: true, force: true });
});

export async function explain(command: Document): Promise<Document> {
  return db.command({ explain: command });
}

/** MongoDB's order within one type: enough for the numbers, strings, dates and booleans here. */
export function compare(a: unknown, b: unknown): number {
  const key = (v: unknown) => (v instanceof Date ? v.getTime() : v);
  const [x, y] = [key(a), key(b)] as [number | string | boolean, number | string | boolean];
  return x < y ? -1 : x > y ? 1 : 0;
}

export const ids = (list: Row[]) => list.map((d) => d._id);
