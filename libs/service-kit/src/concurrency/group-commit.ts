/**
 * Writes (or queries) of what callers submit at about the same time, together: the first at once, those arriving
 * meanwhile in the next, each caller answered by the one that held its items. On the embedded server each write is a
 * transaction taken in turn (docs/architecture.md: Group commit).
 */
export class GroupCommit<T, R = void> {
  private waiting: Array<{ items: T[]; resolve(result: R): void; reject(err: unknown): void }> = [];
  private writing = false;

  constructor(private readonly write: (items: T[]) => Promise<R>) {}

  submit(items: T[]): Promise<R> {
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
          const result = await this.write(group.flatMap((g) => g.items));
          for (const g of group) g.resolve(result);
        } catch (err) {
          for (const g of group) g.reject(err);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
