/**
 * The documents an outbox entry carries (CarriedDoc: audit entries, the
 * drawer's ledger entries), stored once their write succeeded, each under its
 * event's id. The entry keeps them in its `records` field, a stored name.
 */
import type { Db } from 'mongodb';
import { itemAt } from '../domain/arrays';
import { GroupCommit } from '../concurrency/group-commit';
import { inChunks, isDuplicateKeyError, writeErrorsOf } from './database-quirks';
import type { OutboxEntry } from './outbox-entries';

export class CarriedDocs {
  /** Entries whose records are stored. */
  private readonly stored = new Set<string>();
  /** Records of settled writes: stored together with the ones that settle meanwhile (see storeTogether). */
  private readonly together = new GroupCommit<OutboxEntry>((entries) => this.store(entries));

  constructor(private readonly db: Db) {}

  /**
   * store() for requests that settle at the same time, in one write per
   * collection (group commit): the first waits for nothing, the ones that
   * arrive while a write is in flight go together in the next.
   */
  storeTogether(entries: OutboxEntry[]): Promise<void> {
    if (!entries.some((entry) => (entry.records?.length ?? 0) > 0)) return Promise.resolve();
    return this.together.submit(entries);
  }

  /** Inserts the records of these entries that are not stored yet; one already there counts as stored. */
  async store(entries: OutboxEntry[]): Promise<void> {
    const pending = entries.filter((entry) => (entry.records?.length ?? 0) > 0 && !this.stored.has(entry._id));
    const byCollection = new Map<string, Array<{ _id: string }>>();
    for (const { _id, records } of pending) {
      for (const { collection, doc } of records!)
        byCollection.set(collection, [...(byCollection.get(collection) ?? []), { ...doc, _id }]);
    }
    for (const [collection, docs] of byCollection) {
      const target = this.db.collection<{ _id: string }>(collection);
      try {
        await target.insertMany(docs, { ordered: false });
      } catch (err) {
        const errors = writeErrorsOf(err);
        if (!errors?.every((e) => isDuplicateKeyError(e))) throw err;
        // Refused as duplicates: stored already, unless another unique index refused them.
        const refused = errors.map((e) => itemAt(docs, e.index)._id);
        if ((await target.countDocuments({ _id: { $in: refused } })) !== refused.length) throw err;
      }
    }
    for (const entry of pending) this.stored.add(entry._id);
  }

  /**
   * Whether every record of these entries is stored (in any process), each
   * under its entry's id; false when one of them carries none.
   */
  async allStored(entries: OutboxEntry[]): Promise<boolean> {
    if (entries.some((entry) => (entry.records?.length ?? 0) === 0)) return false;
    const byCollection = new Map<string, string[]>();
    for (const { _id, records } of entries)
      for (const { collection } of records!)
        byCollection.set(collection, [...(byCollection.get(collection) ?? []), _id]);
    for (const [collection, ids] of byCollection) {
      for (const chunk of inChunks(ids, 500)) {
        const found = await this.db.collection<{ _id: string }>(collection).countDocuments({ _id: { $in: chunk } });
        if (found < chunk.length) return false;
      }
    }
    return true;
  }

  /** The entry is published and deleted: nothing more to remember of it. */
  done(eventId: string): void {
    this.stored.delete(eventId);
  }
}
