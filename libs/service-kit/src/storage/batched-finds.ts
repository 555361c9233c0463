/**
 * Finds by key made at about the same time, sent as one `_id: {$in: [...]}` query, never older than a find sent
 * alone; one query in flight, a find queued too long fails (docs/service-kit.md).
 */
import type { Collection, Document, Filter } from 'mongodb';
import { findByKeys } from './database-quirks';
import { GroupCommit } from '../concurrency/group-commit';

/** How long a find may wait for the query in flight before its own is sent (see the module's note). */
const QUEUED_MAX_MS = 1_000;

/** A find that waited too long for the query before it, which the database had not answered. */
export class FindQueuedTooLong extends Error {
  constructor(waitedMs: number) {
    super(`find not sent: it waited ${waitedMs} ms for the query before it`);
    this.name = 'FindQueuedTooLong';
  }
}

/** Why a find asked at `askedAt` is not sent at `now`: it waited too long (see the module's note); null: it is sent. */
export function queuedTooLong(askedAt: number, now: number): FindQueuedTooLong | null {
  return now - askedAt <= QUEUED_MAX_MS ? null : new FindQueuedTooLong(now - askedAt);
}

interface Wanted<Doc> {
  key: string;
  askedAt: number;
  found?: Doc | null;
  refused?: FindQueuedTooLong;
}

export class BatchedFinds<Doc extends Document & { _id: string }> {
  private readonly batches = new GroupCommit<Wanted<Doc>>((items) => this.send(items));

  /** `filter`: what every record found must also match (it is live, say), or how to ask it once per query; others read as null. */
  constructor(
    private readonly collection: Collection<Doc>,
    private readonly filter: Filter<Doc> | (() => Promise<Filter<Doc>>) = {},
  ) {}

  /** The record under `key` that matches the filter, or null; rejects as the query would alone. */
  async find(key: string): Promise<Doc | null> {
    const wanted: Wanted<Doc> = { key, askedAt: Date.now() };
    await this.batches.submit([wanted]);
    if (wanted.refused) throw wanted.refused;
    return wanted.found ?? null;
  }

  private async send(wanted: Wanted<Doc>[]): Promise<void> {
    const now = Date.now();
    const items = wanted.filter((item) => {
      const refused = queuedTooLong(item.askedAt, now);
      if (refused) item.refused = refused;
      return !refused;
    });
    if (items.length === 0) return;
    const filter = typeof this.filter === 'function' ? await this.filter() : this.filter;
    const docs = await findByKeys(
      this.collection,
      items.map((item) => item.key),
      { filter },
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
