import type { Collection } from 'mongodb';
import { isDuplicateKeyError } from './database-quirks';

/**
 * The collection of the bill-number marks: the highest number inserted per
 * date, as far as the replicas have told. Its stored name is older than the word "mark".
 */
export const BILL_NUMBER_MARKS = 'bill_number_hints';

interface NumberMark {
  _id: string;
  last: number;
}

/** Consecutive collisions after which the true highest number is read from the bills. */
const RESYNC_AFTER_COLLISIONS = 3;
/** The shared mark of a date is raised at most this often (it may lag; a lag costs a collision, never a gap). */
const MARK_INTERVAL_MS = 250;

/**
 * Bill numbers per bill date: next = highest existing + 1, with the unique
 * index on bill_number as the only authority.
 *
 * Within one process, bills are written by one worker at a
 * time (see BillWrites), which knows the next number to try. Across
 * replicas a shared mark (BILL_NUMBER_MARKS, raised with `$max`) tells where
 * to start; it may lag (FerretDB applies `$max` without atomicity, a process
 * may die before raising it) but never leads, since it only records numbers
 * that were inserted. A collision therefore always means "try higher", and
 * numbers are consumed only by successful inserts: they stay gap-free.
 */
export class BillNumbers {
  private readonly next = new Map<string, number>();
  private readonly collisions = new Map<string, number>();
  private readonly markTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly marks: Collection<NumberMark>,
    private readonly highestInBills: (billDate: string) => Promise<number>,
  ) {}

  /** The next number to try for a date. */
  async candidate(billDate: string): Promise<number> {
    const known = this.next.get(billDate);
    if (known !== undefined) return known;
    const mark = await this.marks.findOne({ _id: billDate });
    return (mark?.last ?? 0) + 1;
  }

  /** Forgets the next numbers this process knows: another process may have numbered those dates since. */
  forget(): void {
    this.next.clear();
    this.collisions.clear();
  }

  /** Numbers up to `lastSeq` are taken by this process's inserts. */
  used(billDate: string, lastSeq: number): void {
    this.next.set(billDate, lastSeq + 1);
    this.collisions.delete(billDate);
    this.scheduleMark(billDate, lastSeq);
  }

  /** `seq` was not consumed (its bill failed for another reason): try it again. */
  retry(billDate: string, seq: number): void {
    this.next.set(billDate, seq);
  }

  /** `seq` is taken by another process: move past it (and past what the others say they used). */
  async collided(billDate: string, seq: number): Promise<void> {
    const collisions = (this.collisions.get(billDate) ?? 0) + 1;
    this.collisions.set(billDate, collisions);
    const known =
      collisions >= RESYNC_AFTER_COLLISIONS
        ? await this.highestInBills(billDate)
        : ((await this.marks.findOne({ _id: billDate }))?.last ?? 0);
    this.next.set(billDate, Math.max(seq, known) + 1);
  }

  /** Raises every pending mark now (before a bulk load ends). */
  async flush(): Promise<void> {
    const pending = [...this.markTimers.keys()];
    for (const billDate of pending) {
      clearTimeout(this.markTimers.get(billDate));
      this.markTimers.delete(billDate);
      await this.raiseMark(billDate, (this.next.get(billDate) ?? 1) - 1);
    }
  }

  /** Raises the shared mark of a date soon, once for however many bills were numbered meanwhile. */
  private scheduleMark(billDate: string, lastSeq: number): void {
    if (this.markTimers.has(billDate)) return;
    const timer = setTimeout(() => {
      this.markTimers.delete(billDate);
      void this.raiseMark(billDate, Math.max(lastSeq, (this.next.get(billDate) ?? 1) - 1));
    }, MARK_INTERVAL_MS);
    timer.unref();
    this.markTimers.set(billDate, timer);
  }

  /** Best effort: a lagging mark only costs a collision. */
  private async raiseMark(billDate: string, seq: number): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.marks.updateOne({ _id: billDate }, { $max: { last: seq } }, { upsert: true });
        return;
      } catch (err) {
        if (!isDuplicateKeyError(err)) return; // two first upserts raced: try again
      }
    }
  }
}
