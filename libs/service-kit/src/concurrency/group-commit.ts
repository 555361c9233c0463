/**
 * Writes of what callers submit at about the same time, together (group
 * commit): the first submission is written at once; the ones that arrive
 * while a write is in flight go together in the next. Each submission settles
 * with the write that held its items. On the embedded server every write is a
 * transaction of its own, taken in turn: sixty-four requests that each insert
 * one outbox entry, or each mark the same cached reads stale, cost one write
 * instead of sixty-four.
 */
export class GroupCommit<T> {
  private waiting: Array<{ items: T[]; resolve(): void; reject(err: unknown): void }> = [];
  private writing = false;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  submit(items: T[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ items, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0);
        try {
          await this.write(group.flatMap((g) => g.items));
          for (const g of group) g.resolve();
        } catch (err) {
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
