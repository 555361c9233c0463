/** Scopes whose latest invalidation is remembered, at most (per-record scopes are many). */
const INVALIDATIONS_KEPT = 10_000;

export interface ScopedEntry<V> {
  scopes: string[];
  value: V;
  keptAt: number;
  weight: number;
}

/** Beyond `maxEntries`, and beyond `maxWeight` as `weigh` counts the values (bytes, say), the least recently used go. */
export interface ScopedEntriesLimits<V> {
  maxEntries: number;
  maxWeight?: number;
  weigh?: (value: V) => number;
}

/**
 * Values kept in memory under the scopes they depend on, and the mark of each
 * scope's latest invalidation: what a service's read cache (versioned-cache.ts)
 * and the gateway's reply cache (services/gateway reply-cache.ts) share. Marks
 * only grow: a counter of the process's own, or the cache stream's sequence.
 * A load keeps its value only if none of its scopes was invalidated after the
 * mark it started at (`invalidatedSince`): that invalidation may describe a
 * write the load did not see. The least recently used entry goes beyond
 * `maxEntries`.
 */
export class ScopedEntries<V> {
  private readonly entries = new Map<string, ScopedEntry<V>>();
  private readonly byScope = new Map<string, Set<string>>();
  private readonly invalidatedAt = new Map<string, number>();
  private latestMark = 0;
  /** The highest mark forgotten: a scope without one of its own counts as invalidated then. */
  private forgottenUpTo = 0;
  private weight = 0;
  private readonly limits: Required<ScopedEntriesLimits<V>>;

  constructor(limits: number | ScopedEntriesLimits<V>) {
    const given = typeof limits === 'number' ? { maxEntries: limits } : limits;
    this.limits = { maxWeight: Infinity, weigh: () => 0, ...given };
  }

  /** The latest invalidation's mark. */
  get mark(): number {
    return this.latestMark;
  }

  /** The entry under `id`, made the most recently used. */
  find(id: string): ScopedEntry<V> | undefined {
    const hit = this.entries.get(id);
    if (hit) {
      this.entries.delete(id);
      this.entries.set(id, hit);
    }
    return hit;
  }

  keep(id: string, scopes: string[], value: V): void {
    const { maxEntries, maxWeight, weigh } = this.limits;
    const weight = weigh(value);
    if (maxEntries <= 0 || weight > maxWeight) return;
    this.drop(id);
    this.entries.set(id, { scopes, value, keptAt: Date.now(), weight });
    this.weight += weight;
    for (const scope of scopes) {
      const ids = this.byScope.get(scope) ?? new Set<string>();
      this.byScope.set(scope, ids.add(id));
    }
    while (this.entries.size > maxEntries || this.weight > maxWeight) this.drop(this.entries.keys().next().value!);
  }

  /** The mark of the latest invalidation of any of these scopes (0: none known). */
  latestInvalidation(scopes: readonly string[]): number {
    let latest = 0;
    for (const scope of scopes) latest = Math.max(latest, this.invalidatedAt.get(scope) ?? this.forgottenUpTo);
    return latest;
  }

  /** Whether any of these scopes was invalidated after `mark`. */
  invalidatedSince(scopes: readonly string[], mark: number): boolean {
    return this.latestInvalidation(scopes) > mark;
  }

  /**
   * Drops what the scopes cover and notes their invalidation at `mark` (by
   * default the next of the process's own count). `oldestInUse`: the lowest
   * mark a load in progress started at, below which marks may be forgotten.
   */
  invalidate(scopes: readonly string[], oldestInUse: () => number, mark = this.latestMark + 1): void {
    this.latestMark = Math.max(this.latestMark, mark);
    for (const scope of scopes) {
      this.invalidatedAt.set(scope, mark);
      const ids = this.byScope.get(scope);
      if (!ids) continue;
      this.byScope.delete(scope);
      for (const id of ids) this.drop(id);
    }
    if (this.invalidatedAt.size > INVALIDATIONS_KEPT) this.forget(Math.min(oldestInUse(), this.latestMark));
  }

  /** An invalidation matters only to loads that started before it: the others' are forgotten. */
  private forget(oldest: number): void {
    for (const [scope, at] of this.invalidatedAt) {
      if (at > oldest) continue;
      this.invalidatedAt.delete(scope);
      this.forgottenUpTo = Math.max(this.forgottenUpTo, at);
    }
  }

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    this.weight -= entry.weight;
    for (const scope of entry.scopes) {
      const ids = this.byScope.get(scope);
      ids?.delete(id);
      if (ids?.size === 0) this.byScope.delete(scope);
    }
  }

  clear(): void {
    this.entries.clear();
    this.byScope.clear();
    this.weight = 0;
  }
}
