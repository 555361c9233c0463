import type { Collection } from 'mongodb';
import { isDuplicateKeyError, KeyedMutex } from '@clinic/service-kit';

interface NumberHint {
  _id: string;
  last: number;
}

/** Consecutive collisions after which the true highest number is read from the bills. */
const RESYNC_AFTER_COLLISIONS = 3;

/**
 * Bill numbers per bill date: next = highest existing + 1, with the unique
 * index on bill_number as the only authority.
 *
 * Within one process, creations for a date take turns (a mutex), and the last
 * number used is remembered, so they never collide with each other. Across
 * replicas a shared hint (`bill_number_hints`, raised with `$max` after each
 * success) tells where to start; it may lag (FerretDB applies `$max` without
 * atomicity, and a process may die before raising it) but never leads, since
 * it only ever records numbers that were inserted. A collision therefore
 * always means "try higher": numbers are only consumed by successful inserts,
 * so they stay gap-free.
 */
export class BillNumbers {
  private readonly mutex = new KeyedMutex();
  private readonly lastUsed = new Map<string, number>();

  constructor(
    private readonly hints: Collection<NumberHint>,
    private readonly highestInBills: (billDate: string) => Promise<number>,
  ) {}

  /** Runs one creation for a date, exclusively within this process. */
  exclusive<T>(billDate: string, work: (numbers: DateNumbers) => Promise<T>): Promise<T> {
    return this.mutex.run(billDate, () => work(new DateNumbers(this, billDate)));
  }

  /** @internal */
  async firstCandidate(billDate: string): Promise<number> {
    const known = this.lastUsed.get(billDate);
    if (known !== undefined) return known + 1;
    const hint = await this.hints.findOne({ _id: billDate });
    return (hint?.last ?? 0) + 1;
  }

  /** @internal */
  async afterCollision(billDate: string, collided: number, collisions: number): Promise<number> {
    if (collisions >= RESYNC_AFTER_COLLISIONS) return Math.max(collided, await this.highestInBills(billDate)) + 1;
    const hint = await this.hints.findOne({ _id: billDate });
    return Math.max(collided, hint?.last ?? 0) + 1;
  }

  /** @internal */
  used(billDate: string, seq: number): void {
    this.lastUsed.set(billDate, Math.max(seq, this.lastUsed.get(billDate) ?? 0));
  }

  /** Raises the shared hint; best effort, since a lagging hint only costs a collision. */
  async publishHint(billDate: string, seq: number): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.hints.updateOne({ _id: billDate }, { $max: { last: seq } }, { upsert: true });
        return;
      } catch (err) {
        if (!isDuplicateKeyError(err)) return; // two first upserts raced: try again
      }
    }
  }
}

/** The numbering of one date during one exclusive creation. */
export class DateNumbers {
  private collisions = 0;

  constructor(
    private readonly numbers: BillNumbers,
    readonly billDate: string,
  ) {}

  first(): Promise<number> {
    return this.numbers.firstCandidate(this.billDate);
  }

  collidedAt(seq: number): Promise<number> {
    this.collisions++;
    return this.numbers.afterCollision(this.billDate, seq, this.collisions);
  }

  succeeded(seq: number): void {
    this.numbers.used(this.billDate, seq);
  }
}
