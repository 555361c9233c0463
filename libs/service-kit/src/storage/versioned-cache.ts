import type { CacheCoherence } from './cache-coherence';
import type { Logger } from '../process/logger';

/** Scopes whose latest invalidation is remembered, at most (per-record scopes are many). */
const INVALIDATIONS_KEPT = 10_000;

interface Entry {
  scopes: string[];
  value: unknown;
  loadedAt: number;
}

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
  private readonly entries = new Map<string, Entry>();
  /** Entry ids by scope, for invalidations. */
  private readonly byScope = new Map<string, Set<string>>();
  /** Invalidations counted, and the count at each scope's latest one (pruned; see forgetOldInvalidations). */
  private invalidations = 0;
  private readonly invalidatedAt = new Map<string, number>();
  /** Loads in progress, with the invalidation count when each started. */
  private readonly loading = new Map<string, { startedAt: number; result: Promise<unknown> }>();
  private readonly limits: Required<VersionedCacheOptions>;

  constructor(
    private readonly coherence: CacheCoherence,
    private readonly log: Logger,
    options: VersionedCacheOptions = {},
  ) {
    this.limits = { maxEntries: options.maxEntries ?? 1000, maxAgeMs: options.maxAgeMs ?? 30_000 };
    coherence.onInvalidated((scopes) => this.dropLocal(scopes));
    coherence.onNewEpoch(() => this.clear());
  }

  /**
   * The value cached under `key`, valid until any of its scopes is
   * invalidated (a value that depends on several kinds of data names each).
   */
  async get<T>(scope: string | string[], key: string, load: () => Promise<T>): Promise<T> {
    if (!this.coherence.hot()) return load();
    const scopes = typeof scope === 'string' ? [scope] : scope;
    const id = `${scopes.join('|')}\u0000${key}`;
    const hit = this.entries.get(id);
    if (hit) {
      // Most recently used last, for eviction.
      this.entries.delete(id);
      this.entries.set(id, hit);
      if (Date.now() - hit.loadedAt >= this.limits.maxAgeMs) {
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
    let latest = 0;
    for (const scope of scopes) latest = Math.max(latest, this.invalidatedAt.get(scope) ?? 0);
    const loadKey = `${id}\u0000${epoch}:${latest}`;
    const running = this.loading.get(loadKey);
    if (running) return running.result as Promise<T>;
    const startedAt = this.invalidations;
    const result = load().then((value) => {
      const current =
        this.coherence.epoch === epoch && scopes.every((scope) => (this.invalidatedAt.get(scope) ?? 0) <= startedAt);
      if (current) this.keep(id, { scopes, value, loadedAt: Date.now() });
      return value;
    });
    this.loading.set(loadKey, { startedAt, result });
    const forget = () => this.loading.delete(loadKey);
    result.then(forget, forget);
    return result;
  }

  private keep(id: string, entry: Entry): void {
    this.drop(id);
    this.entries.set(id, entry);
    for (const scope of entry.scopes) {
      const ids = this.byScope.get(scope) ?? new Set<string>();
      this.byScope.set(scope, ids.add(id));
    }
    if (this.entries.size > this.limits.maxEntries) this.drop(this.entries.keys().next().value as string);
  }

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    for (const scope of entry.scopes) this.byScope.get(scope)?.delete(id);
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
    this.invalidations++;
    for (const scope of scopes) {
      this.invalidatedAt.set(scope, this.invalidations);
      const ids = this.byScope.get(scope);
      if (!ids) continue;
      this.byScope.delete(scope);
      for (const id of ids) this.drop(id);
    }
    if (this.invalidatedAt.size > INVALIDATIONS_KEPT) this.forgetOldInvalidations();
  }

  /** An invalidation matters only to loads that started before it: the others' are forgotten. */
  private forgetOldInvalidations(): void {
    let oldest = this.invalidations;
    for (const { startedAt } of this.loading.values()) oldest = Math.min(oldest, startedAt);
    for (const [scope, at] of this.invalidatedAt) if (at <= oldest) this.invalidatedAt.delete(scope);
  }

  private clear(): void {
    this.entries.clear();
    this.byScope.clear();
  }
}
