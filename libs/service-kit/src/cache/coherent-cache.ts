import { Follower, type RestartReason, type StoredInvalidation, type Timers } from './follower';
import { ScopedEntries, type ScopedEntriesLimits, type ScopedEntry } from './scoped-entries';

/** How long a hit waits for the invalidations stored before it to arrive, before the cache starts again. */
const MAX_WAIT_MS = 200;

/** Where a load began: its value is kept only if nothing it depends on was invalidated since. */
export interface LoadTicket {
  epoch: number;
  mark: number;
}

export interface CoherentCacheOptions<V> extends ScopedEntriesLimits<V> {
  /** The sequence of the stream's latest invalidation, from a query sent after the call (InvalidationLog.latest). */
  latest(): Promise<number>;
  onRestart?(reason: RestartReason): void;
  maxWaitMs?: number;
  timers?: Timers;
  now?: () => number;
}

/**
 * Values kept in one process and answered only once proved current (a hit waits until this process has applied
 * the stream's latest invalidation); writers never wait for a reader. Why that is exact: docs/CACHE.md.
 */
export class CoherentCache<V> {
  readonly follower: Follower;
  private readonly entries: ScopedEntries<V>;
  private readonly now: () => number;

  constructor(private readonly options: CoherentCacheOptions<V>) {
    this.entries = new ScopedEntries(options);
    this.now = options.now ?? Date.now;
    this.follower = new Follower(
      {
        invalidated: (scopes) => this.entries.invalidate(scopes),
        restarted: (reason) => {
          this.entries.clear();
          options.onRestart?.(reason);
        },
      },
      options.timers,
    );
  }

  /** The entry under `id`, once proved current; undefined when there is none or it cannot be proved. */
  async current(id: string): Promise<ScopedEntry<V> | undefined> {
    if (!this.entries.has(id)) return undefined;
    if (!(await this.caughtUp())) return undefined;
    return this.entries.find(id);
  }

  /** Whether every invalidation stored before this call is applied here (false: not in time, or the stream is away). */
  async caughtUp(): Promise<boolean> {
    const appliedBefore = this.follower.position;
    let seq: number;
    try {
      seq = await this.options.latest();
    } catch {
      return false;
    }
    if (seq < appliedBefore) {
      // Behind what was applied before it was asked: the stream was made again, and nothing kept can be proved.
      this.follower.restart(seq, 'reset');
      return false;
    }
    return this.follower.reached(seq, this.options.maxWaitMs ?? MAX_WAIT_MS);
  }

  begin(): LoadTicket {
    return { epoch: this.follower.epoch, mark: this.entries.mark };
  }

  /** Whether a load that began at `ticket` may still be kept under these scopes. */
  keepable(ticket: LoadTicket, scopes: readonly string[]): boolean {
    return ticket.epoch === this.follower.epoch && !this.entries.invalidatedSince(scopes, ticket.mark);
  }

  keep(ticket: LoadTicket, id: string, scopes: string[], value: V): void {
    if (this.keepable(ticket, scopes)) this.entries.keep(id, scopes, value, this.now());
  }

  /** A write of this process: dropped here before it is stored for the others. */
  drop(scopes: readonly string[]): void {
    this.entries.invalidate(scopes);
  }

  deliver(stored: StoredInvalidation): void {
    this.follower.deliver(stored);
  }
}
