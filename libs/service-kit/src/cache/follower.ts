/** An invalidation as the cache stream republished it: its sequence, the one before it, its scopes (null: unreadable). */
export interface StoredInvalidation {
  seq: number;
  previous: number;
  scopes: string[] | null;
}

/**
 * Why a cache starts again from nothing: its process starts, a message was missed or came out of order, one could
 * not be read, a wait for one ran out, or the stream went back (made again, its sequences anew).
 */
export type RestartReason = 'start' | 'gap' | 'unreadable' | 'lagging' | 'reset';

export interface FollowerEvents {
  invalidated(scopes: string[]): void;
  restarted(reason: RestartReason): void;
}

/** Timers, so that tests can run the rules on a clock of their own. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * How far a cache has applied its service's invalidations, in the stream's
 * order. An invalidation is applied only when it follows the last one applied;
 * anything else (a gap, a repeat, an unreadable one) empties the cache and
 * starts again at its sequence, which is always safe.
 */
export class Follower {
  private applied = 0;
  private restarts = 0;
  private readonly waiting = new Set<{ seq: number; done(reached: boolean): void }>();

  constructor(
    private readonly events: FollowerEvents,
    private readonly timers: Timers = realTimers,
  ) {}

  /** The sequence of the last invalidation applied. */
  get position(): number {
    return this.applied;
  }

  /** Counts the restarts: a load that began before one is not kept. */
  get epoch(): number {
    return this.restarts;
  }

  /** An invalidation; one that cannot be placed (seq 0) empties the cache where it stands. */
  deliver({ seq, previous, scopes }: StoredInvalidation): void {
    if (scopes !== null && previous === this.applied && seq > previous) {
      this.applied = seq;
      this.events.invalidated(scopes);
    } else {
      this.restart(seq > 0 ? seq : this.applied, scopes === null ? 'unreadable' : 'gap');
    }
    this.wake();
  }

  /** Empties the cache and takes `seq` as applied. */
  restart(seq: number, reason: RestartReason): void {
    this.applied = seq;
    this.restarts++;
    this.events.restarted(reason);
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiting) if (waiter.seq <= this.applied) waiter.done(true);
  }

  /**
   * True once every invalidation up to `seq` is applied (at once, mostly);
   * false when that takes longer than `maxWaitMs`, and the cache then starts
   * again at `seq` rather than catch up.
   */
  reached(seq: number, maxWaitMs: number): Promise<boolean> {
    if (seq <= this.applied) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        seq,
        done: (reached: boolean) => {
          this.timers.clearTimeout(timer);
          this.waiting.delete(waiter);
          resolve(reached);
        },
      };
      const timer = this.timers.setTimeout(() => {
        waiter.done(false);
        if (this.applied < seq) this.restart(seq, 'lagging');
      }, maxWaitMs);
      this.waiting.add(waiter);
    });
  }
}
