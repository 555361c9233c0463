/**
 * A started stack holds exactly the indexes of the services' index catalogues
 * (services/*\/src/storage/index-catalogue.ts, which docs/indexes.md is
 * generated from), each with the catalogue's key and options: an index created
 * outside the catalogue, or catalogued and not created, fails here.
 */
import { MongoClient } from 'mongodb';
import { DATABASE_CATALOGUES } from '../../tools/cli/src/docs/indexes';
import { fileStack } from './harness';

const t = fileStack();

/**
 * An index's fields in order and whether it is unique. Not `sparse`: the
 * embedded server does not report it (MongoDB 7 does).
 */
const shapeOf = (key: unknown, unique: unknown) => ({
  key: Object.entries(key as Record<string, unknown>),
  unique: unique === true,
});

/** `database.collection name` -> the index's shape, as the catalogue declares it. */
function cataloguedIndexes(): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const { database, collections } of DATABASE_CATALOGUES)
    for (const { collection, indexes } of collections)
      for (const { name, key, unique } of indexes) found.set(`${database}.${collection} ${name}`, shapeOf(key, unique));
  return found;
}

async function actualIndexes(): Promise<Map<string, unknown>> {
  const client = await MongoClient.connect(t.stack.infra.mongoUrl);
  try {
    const found = new Map<string, unknown>();
    for (const { database } of DATABASE_CATALOGUES) {
      const db = client.db(database);
      for (const { name: collection } of await db.listCollections().toArray()) {
        for (const index of await db.collection(collection).listIndexes().toArray()) {
          if (index.name === '_id_') continue;
          found.set(`${database}.${collection} ${index.name}`, shapeOf(index.key, index.unique));
        }
      }
    }
    return found;
  } finally {
    await client.close();
  }
}

it('holds every index of the catalogues, with its key and options, and no other', async () => {
  const catalogued = cataloguedIndexes();
  expect(catalogued.size).toBeGreaterThan(10);
  const actual = await actualIndexes();
  expect([...actual.keys()].sort()).toEqual([...catalogued.keys()].sort());
  for (const [index, declared] of catalogued)
    expect({ index, ...(actual.get(index) as object) }).toEqual({ index, ...(declared as object) });
});
