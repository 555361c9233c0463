/**
 * The index catalogue: each service declares its collections' indexes and the
 * queries each answers (services/<service>/src/storage/index-catalogue.ts), its
 * storage creates the indexes, and `npm run docs` writes docs/indexes.md from them.
 */
import type { Db } from 'mongodb';
import { ensureIndexes, type IndexSpec } from './database-quirks';

/** A collection's indexes and the queries each answers (`index` says which index a query reads, in words). */
export interface IndexedCollection {
  collection: string;
  indexes: IndexSpec[];
  queries: { query: string; index: string }[];
}

/** An index's name as a catalogue's `index` text writes it (Markdown code). */
export const indexRef = (name: string): string => `\`${name}\``;

/** Creates the indexes a service's catalogue declares, collection by collection: the database has what the docs list. */
export async function ensureCatalogueIndexes(db: Db, catalogue: IndexedCollection[]): Promise<void> {
  for (const { collection, indexes } of catalogue) await ensureIndexes(db.collection(collection), indexes, db);
}
