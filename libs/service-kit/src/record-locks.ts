import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { conflict } from './errors';
import type { Logger } from './logger';
import { isDuplicateKeyError } from './mongo';
import { KeyedMutex } from './mutex';
import { pauses, retryPolicy } from './retry';

interface LockDoc {
  _id: string;
  token: string;
  expires_at: Date;
}

export const RECORD_BUSY_MESSAGE = 'The record is being changed by another request. Please retry.';

export interface RecordLockOptions {
  /** A holder that died keeps its lock this long at most. */
  leaseMs?: number;
  /** How long a request waits for a lock before it gives up (409). */
  waitMs?: number;
}

/**
 * One change at a time per record, across every replica: read, check and
 * write of an update or delete happen under a lock. FerretDB v1 applies an
 * update as read-then-replace without re-checking the filter, so without it
 * an update racing a cancel could write the record back as it was before the
 * cancel, and two updates could each lose the other's fields; on MongoDB it
 * also keeps each event's "after" image true. The lock is a document whose
 * unique `_id` makes taking it atomic on both servers, with a lease so that a
 * crashed holder does not block the record for good.
 */
export class RecordLocks {
  private readonly local = new KeyedMutex();
  private readonly locks: Collection<LockDoc>;
  private readonly leaseMs: number;
  private readonly waitMs: number;

  constructor(
    db: Db,
    private readonly log: Logger,
    options: RecordLockOptions = {},
  ) {
    this.locks = db.collection<LockDoc>('record_locks');
    this.leaseMs = options.leaseMs ?? 10_000;
    this.waitMs = options.waitMs ?? 3_000;
  }

  /**
   * Runs `work` holding the lock of one record, e.g. `run('bill', 42, ...)`.
   * The lock is released when `work` ends, or earlier when `work` calls
   * `release` (once its write has landed, say, so that the release overlaps
   * what is left to do). `run` settles only after the release.
   */
  run<T>(record: string, id: number, work: (release: () => void) => Promise<T>): Promise<T> {
    const key = `${record}:${id}`;
    // Requests of this process queue here, so the database only arbitrates between replicas.
    return this.local.run(key, async () => {
      const token = await this.acquire(key);
      let released: Promise<void> | undefined;
      const release = () => {
        released ??= this.locks
          .deleteOne({ _id: key, token })
          .then(() => undefined)
          .catch((err: unknown) => {
            this.log.warn({ err, key }, 'record lock not released; it expires with its lease');
          });
      };
      try {
        return await work(release);
      } finally {
        release();
        await released;
      }
    });
  }

  private acquire(key: string): Promise<string> {
    const deadline = Date.now() + this.waitMs;
    return waitForRelease.execute(async () => {
      const token = randomUUID();
      if (await this.take(key, token)) return token;
      // Held by another replica, or left by one that died: take it over once its lease has run out.
      const expired = await this.locks.deleteOne({ _id: key, expires_at: { $lt: new Date() } });
      if (expired.deletedCount > 0) {
        this.log.warn({ key }, 'took over an expired record lock');
        if (await this.take(key, token)) return token;
      }
      if (Date.now() >= deadline) throw conflict(RECORD_BUSY_MESSAGE);
      throw new LockHeld();
    });
  }

  /** Whether the lock was free and is now this token's. */
  private async take(key: string, token: string): Promise<boolean> {
    try {
      await this.locks.insertOne({ _id: key, token, expires_at: new Date(Date.now() + this.leaseMs) });
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }
}

class LockHeld extends Error {}

/** A lock held elsewhere is asked for again after 5 ms, then twice as long each time, at most 100 ms apart. */
const waitForRelease = retryPolicy({
  retryOn: (err) => err instanceof LockHeld,
  retries: Infinity,
  pause: pauses.doubling(5, 100),
});
