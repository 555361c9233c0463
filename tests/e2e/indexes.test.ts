/**
 * The README's "Queries and their indexes" table names exactly the indexes a
 * started stack holds: an index added or dropped in code without the table (or
 * the other way round) fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { REPO_ROOT } from '@clinic/devstack';
import { startTestStack, type TestStack } from './harness';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(async () => {
  await t?.stop();
});

const DATABASES = ['clinic_billing', 'clinic_catalogue', 'clinic_sessions'];

/** `database.collection name` for each index the README's table names (`every database.x` for each database). */
function documentedIndexes(): Set<string> {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.split('## Queries and their indexes')[1]?.split('\n## ')[0];
  if (!section) throw new Error('README has no "Queries and their indexes" section');
  const found = new Set<string>();
  for (const line of section
    .split('\n')
    .filter((l) => l.startsWith('| clinic_') || l.startsWith('| every database.'))) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    const [where, index] = [cells[1]!, cells[cells.length - 2]!]; // a row: '', its cells, ''
    // Index names hold an underscore; other words in backticks (`date`) are not names.
    const names = [...index.matchAll(/`([a-z]+(?:_[a-z]+)+)`/g)].map((m) => m[1]);
    const places = where.startsWith('every database.')
      ? DATABASES.map((db) => `${db}.${where.split('.')[1]}`)
      : [where];
    for (const place of places) for (const name of names) found.add(`${place} ${name}`);
  }
  return found;
}

async function actualIndexes(): Promise<Set<string>> {
  const client = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    const found = new Set<string>();
    for (const dbName of DATABASES) {
      const db = client.db(dbName);
      for (const { name: collection } of await db.listCollections().toArray()) {
        for (const index of await db.collection(collection).listIndexes().toArray()) {
          if (index.name !== '_id_') found.add(`${dbName}.${collection} ${index.name}`);
        }
      }
    }
    return found;
  } finally {
    await client.close();
  }
}

it('lists every index the services create, and no other', async () => {
  const documented = documentedIndexes();
  expect(documented.size).toBeGreaterThan(10);
  expect([...(await actualIndexes())].sort()).toEqual([...documented].sort());
});
