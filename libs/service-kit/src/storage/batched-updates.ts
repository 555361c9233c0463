/**
 * Compare-and-set writes of one collection made at about the same time, sent as one update command: one commit on
 * the embedded server; how each writer learns its own outcome: docs/service-kit.md.
 */
import type { Collection, Document, Filter, UpdateFilter } from 'mongodb';
import { isDuplicateKeyError } from './database-quirks';
import { GroupCommit } from '../concurrency/group-commit';
import { timeLeftToWrite } from './prepared-events';

export interface CompareAndSet {
  filter: Record<string, unknown>;
  update: UpdateFilter<Document>;
  /** Until when (Date.now()) the write may be sent: the end of its write window. */
  sendBy: number;
  /** Finds the record only once this write has landed (its WriteProof's filter). */
  landed: Record<string, unknown>;
}

type Outcome = { matched: boolean } | { error: unknown };

interface Submitted extends CompareAndSet {
  outcome?: Outcome;
}

export class BatchedUpdates {
  private readonly batches = new GroupCommit<Submitted>((items) => this.send(items));

  constructor(private readonly collection: Collection<Document>) {}

  /** Whether the write matched its record (and landed); rejects as the write would alone. */
  async apply(write: CompareAndSet): Promise<boolean> {
    const submitted: Submitted = { ...write };
    await this.batches.submit([submitted]);
    const outcome = submitted.outcome!;
    if ('error' in outcome) throw outcome.error;
    return outcome.matched;
  }

  /** Never rejects: each item's outcome is its own. */
  private async send(items: Submitted[]): Promise<void> {
    let maxTimeMS = Number.POSITIVE_INFINITY;
    const ready = items.filter((item) => {
      try {
        maxTimeMS = Math.min(maxTimeMS, timeLeftToWrite(item.sendBy));
        return true;
      } catch (error) {
        item.outcome = { error };
        return false;
      }
    });
    if (ready.length === 0) return;
    if (ready.length === 1) return this.sendAlone(ready[0]!);
    try {
      const result = await this.collection.bulkWrite(
        ready.map(({ filter, update }) => ({ updateOne: { filter: filter as Filter<Document>, update } })),
        { ordered: false, maxTimeMS },
      );
      if (result.matchedCount === ready.length) {
        for (const item of ready) item.outcome = { matched: true };
        return;
      }
      await Promise.all(ready.map((item) => this.provenOr(item, () => ({ matched: false }))));
    } catch (error) {
      if (!isDuplicateKeyError(error)) {
        for (const item of ready) item.outcome = { error };
        return;
      }
      for (const item of ready) await this.provenOr(item, () => this.sendAlone(item).then(() => item.outcome!));
    }
  }

  private async sendAlone(item: Submitted): Promise<void> {
    try {
      const maxTimeMS = timeLeftToWrite(item.sendBy);
      const result = await this.collection.updateOne(item.filter as Filter<Document>, item.update, { maxTimeMS });
      item.outcome = { matched: result.matchedCount > 0 };
    } catch (error) {
      item.outcome = { error };
    }
  }

  /** Matched when the record shows the write; otherwise what `otherwise` finds. */
  private async provenOr(item: Submitted, otherwise: () => Outcome | Promise<Outcome>): Promise<void> {
    try {
      const proven = (await this.collection.countDocuments(item.landed as Filter<Document>, { limit: 1 })) > 0;
      item.outcome = proven ? { matched: true } : await otherwise();
    } catch (error) {
      item.outcome = { error };
    }
  }
}
