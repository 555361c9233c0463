import type { CacheCoherence } from '../cache/cache-coherence';
import type { Logger } from '../process/logger';
import { ScopedEntries } from '../cache/scoped-entries';

/** Told the cache scopes a reply depends on, for a read whose reply the gateway may keep (HandlerContext.share). */
export type Share = (scopes: string[]) => void;

export interface VersionedCacheOptions {
  maxEntries?: number;
  /**
   * Bounds how long an entry may outlive a change that no invalidation told
   * (a process that died between its write and its invalidation): an entry
   * older than this is reloaded in the background while it is still answered.
   */
  maxAgeMs?: number;
}

/**
 * Read results kept in each replica's memory, answered without a database
 * round trip and never stale (see cache-coherence.ts):
 * - a write calls `bump(scope)` once it has landed, and answers only once
 *   every replica that may answer from memory has dropped what the scope
 *   covers (or cannot answer from memory any more);
 * - a read answers from memory while this replica holds its lease; otherwise
 *   it loads from the database, as every read did before (and keeps nothing).
 * A load is kept only when none of its scopes was invalidated while it ran
 * (that invalidation may describe a write its query did not see), and a
 * caller joins a load in progress only when none was invalidated since it
 * started.
 */
export class VersionedCache {
  /** Marks: invalidations counted in this process. */
  private readonly entries: ScopedEntries<unknown>;
  /** Loads in progress, with the invalidation count when each started. */
  private readonly loading = new Map<string, { startedAt: number; result: Promise<unknown> }>();
  private readonly limits: Required<VersionedCacheOptions>;

  constructor(
    private readonly coherence: CacheCoherence,
    private readonly log: Logger,
    options: VersionedCacheOptions = {},
  ) {
    this.limits = { maxEntries: options.maxEntries ?? 1000, maxAgeMs: options.maxAgeMs ?? 30_000 };
    this.entries = new ScopedEntries(this.limits.maxEntries);
    coherence.onInvalidated((scopes) => this.dropLocal(scopes));
    coherence.onNewEpoch(() => this.entries.clear());
  }

  /**
   * The value cached under `key`, valid until any of its scopes is
   * invalidated (a value that depends on several kinds of data names each).
   */
  async get<T>(scope: string | string[], key: string, load: () => Promise<T>, share?: Share): Promise<T> {
    const scopes = typeof scope === 'string' ? [scope] : scope;
    share?.(scopes);
    if (!this.coherence.hot()) return load();
    const id = `${scopes.join('|')}\u0000${key}`;
    const hit = this.entries.find(id);
    if (hit) {
      if (Date.now() - hit.keptAt >= this.limits.maxAgeMs) {
        // Only a lost invalidation would make it wrong: refresh behind this answer instead of making it wait
        // (a summary over 10,000 bills takes seconds to recompute on FerretDB).
        this.load(id, scopes, load).catch((err: unknown) =>
          this.log.warn({ err, scopes }, 'cache refresh failed; kept the entry'),
        );
      }
      return hit.value as T;
    }
    return this.load(id, scopes, load);
  }

  /**
   * One load per entry, shared by whoever asks while it runs unless its
   * scopes were invalidated after it started; kept only if they were not.
   */
  private load<T>(id: string, scopes: string[], load: () => Promise<T>): Promise<T> {
    const epoch = this.coherence.epoch;
    const loadKey = `${id}\u0000${epoch}:${this.entries.latestInvalidation(scopes)}`;
    const running = this.loading.get(loadKey);
    if (running) return running.result as Promise<T>;
    const startedAt = this.entries.mark;
    const result = load().then((value) => {
      const current = this.coherence.epoch === epoch && !this.entries.invalidatedSince(scopes, startedAt);
      if (current) this.entries.keep(id, scopes, value);
      return value;
    });
    this.loading.set(loadKey, { startedAt, result });
    const forget = () => this.loading.delete(loadKey);
    result.then(forget, forget);
    return result;
  }

  /** This cache, telling `share` the scopes of each read (for a read whose reply the gateway may keep). */
  sharedWith(share: Share | undefined): Pick<VersionedCache, 'get'> {
    return share ? { get: (scope, key, load) => this.get(scope, key, load, share) } : this;
  }

  /**
   * Marks what the scopes cover as changed, here at once and on every replica
   * before it resolves (see CacheCoherence.invalidate). Called once the write
   * has landed; the write is not to be acknowledged before it resolves.
   */
  async bump(...scopes: string[]): Promise<void> {
    const unique = [...new Set(scopes)];
    this.dropLocal(unique);
    await this.coherence.invalidate(unique);
  }

  private dropLocal(scopes: string[]): void {
    this.entries.invalidate(scopes, () => this.oldestLoad());
  }

  /** The invalidation count when the oldest load in progress started. */
  private oldestLoad(): number {
    let oldest = this.entries.mark;
    for (const { startedAt } of this.loading.values()) oldest = Math.min(oldest, startedAt);
    return oldest;
  }
}
