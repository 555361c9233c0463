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
 * scope's latest invalidation (a count of this process's invalidations). A
 * load keeps its value only if none of its scopes was invalidated after the
 * mark it started at: that invalidation may describe a write it did not see.
 */
export class ScopedEntries<V> {
  private readonly entries = new Map<string, ScopedEntry<V>>();
  private readonly byScope = new Map<string, Set<string>>();
  private readonly invalidatedAt = new Map<string, number>();
  private latestMark = 0;
  /** Marks up to this one are forgotten: a scope without a mark of its own counts as invalidated then. */
  private forgottenUpTo = 0;
  private weight = 0;
  private readonly limits: Required<ScopedEntriesLimits<V>>;

  constructor(limits: ScopedEntriesLimits<V>) {
    this.limits = { maxWeight: Infinity, weigh: () => 0, ...limits };
  }

  /** The latest invalidation's mark. */
  get mark(): number {
    return this.latestMark;
  }

  has(id: string): boolean {
    return this.entries.has(id);
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

  keep(id: string, scopes: string[], value: V, now: number): void {
    const { maxEntries, maxWeight, weigh } = this.limits;
    const weight = weigh(value);
    if (maxEntries <= 0 || weight > maxWeight) return;
    this.drop(id);
    this.entries.set(id, { scopes, value, keptAt: now, weight });
    this.weight += weight;
    for (const scope of scopes) {
      const ids = this.byScope.get(scope) ?? new Set<string>();
      this.byScope.set(scope, ids.add(id));
    }
    while (this.entries.size > maxEntries || this.weight > maxWeight) this.drop(this.entries.keys().next().value!);
  }

  /** Whether any of these scopes was invalidated after `mark`. */
  invalidatedSince(scopes: readonly string[], mark: number): boolean {
    return scopes.some((scope) => (this.invalidatedAt.get(scope) ?? this.forgottenUpTo) > mark);
  }

  /** Drops what the scopes cover and marks their invalidation. */
  invalidate(scopes: readonly string[]): void {
    const mark = ++this.latestMark;
    if (this.invalidatedAt.size >= INVALIDATIONS_KEPT) {
      // Forgetting every mark at once refuses only the loads in flight (their marks are older).
      this.invalidatedAt.clear();
      this.forgottenUpTo = mark - 1;
    }
    for (const scope of scopes) {
      this.invalidatedAt.set(scope, mark);
      const ids = this.byScope.get(scope);
      if (!ids) continue;
      this.byScope.delete(scope);
      for (const id of ids) this.drop(id);
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
