/**
 * Reads of single records by key that requests make at about the same time,
 * sent as one `_id: {$in: [...]}` query (GroupCommit): the first at once,
 * those asked while a query is in flight together in the next. Every payment
 * finds its bill before it writes; at 64 connections, one query instead of
 * several saves each its command's own cost on both sides (the driver's
 * round trip, the server's parse, plan and transaction). A read is never
 * older than one sent alone at the time it was asked: it is sent then or later.
 */
import type { Collection, Document, Filter } from 'mongodb';
import { findByKeys } from './database-quirks';
import { GroupCommit } from './group-commit';

interface Wanted<Doc> {
  key: string;
  found?: Doc | null;
}

export class BatchedFinds<Doc extends Document & { _id: string }> {
  private readonly batches = new GroupCommit<Wanted<Doc>>((items) => this.send(items));

  /** `filter`: what every record found must also match (it is live, say); others read as null. */
  constructor(
    private readonly collection: Collection<Doc>,
    private readonly filter: Filter<Doc> = {},
  ) {}

  /** The record under `key` that matches the filter, or null; rejects as the query would alone. */
  async find(key: string): Promise<Doc | null> {
    const wanted: Wanted<Doc> = { key };
    await this.batches.submit([wanted]);
    return wanted.found ?? null;
  }

  private async send(items: Wanted<Doc>[]): Promise<void> {
    const docs = await findByKeys(
      this.collection,
      items.map((item) => item.key),
      { filter: this.filter },
    );
    const byKey = new Map(docs.map((doc) => [doc._id, doc]));
    const given = new Set<string>();
    for (const item of items) {
      const doc = byKey.get(item.key) ?? null;
      // Callers may change what they get: two asking for one record each get their own copy.
      item.found = doc && given.has(item.key) ? structuredClone(doc) : doc;
      given.add(item.key);
    }
  }
}
