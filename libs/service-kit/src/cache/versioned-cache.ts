import { LRUCache } from 'lru-cache';
import type { Versions } from './scope-versions';

/**
 * Told the versions a reply's reads depend on (`scope=version`), or null when they could not be proved current: the
 * gateway may then keep the reply until one of those scopes gets a new version (HandlerContext.share).
 */
export type Share = (stamps: string[] | null) => void;

/** Where the versions of a service's cache scopes are read and bumped (ScopeVersions). */
export interface VersionSource {
  of(scopes: string[]): Promise<Versions>;
  bump(scopes: string[]): Promise<void>;
}

export interface VersionedCacheOptions {
  maxEntries?: number;
  /** Bounds how long an entry outlives a change whose mark was never stored (a writer that died in between). */
  maxAgeMs?: number;
}

/** A stamp names each scope's version: equal stamps, no mark stored between the two reads. */
export const stampsOf = (scopes: readonly string[], versions: Versions): string[] =>
  scopes.map((scope) => `${scope}=${versions.get(scope) ?? ''}`);

/**
 * A replica's read results, kept with the versions of their scopes read before they were loaded, and answered (or
 * joined while loading) only by a read that finds the same versions after it began. A write bumps its scopes before
 * it answers and never waits for a reader. Why that is exact: docs/CACHE.md.
 */
export class VersionedCache {
  private readonly entries: LRUCache<string, { stamp: string; value: Promise<unknown> }>;

  constructor(
    private readonly versions: VersionSource,
    options: VersionedCacheOptions = {},
  ) {
    this.entries = new LRUCache({ max: options.maxEntries ?? 1000, ttl: options.maxAgeMs ?? 30_000 });
  }

  /** The value under `key`, read again once one of its scopes (a value may depend on several) has a new version. */
  async get<T>(scope: string | string[], key: string, load: () => Promise<T>, share?: Share): Promise<T> {
    const scopes = typeof scope === 'string' ? [scope] : scope;
    const stamps = await this.stamps(scopes);
    share?.(stamps);
    if (stamps === null) return load();
    const id = `${scopes.join('|')}\u0000${key}`;
    const stamp = stamps.join(',');
    const kept = this.entries.get(id);
    if (kept?.stamp === stamp) return kept.value as Promise<T>;
    const value = load();
    this.entries.set(id, { stamp, value });
    value.catch(() => {
      if (this.entries.get(id)?.value === value) this.entries.delete(id);
    });
    return value;
  }

  /** These scopes' stamps, read after this call (null: not proved); a read taken after it may be shared with them. */
  async stamps(scopes: string[]): Promise<string[] | null> {
    try {
      let versions = await this.versions.of(scopes);
      const unmarked = scopes.filter((scope) => !versions.get(scope));
      if (unmarked.length > 0) {
        // No version is "none": that is also what a stream made anew would say of a scope marked before.
        await this.versions.bump(unmarked);
        versions = await this.versions.of(scopes);
      }
      return scopes.every((scope) => versions.get(scope)) ? stampsOf(scopes, versions) : null;
    } catch {
      return null;
    }
  }

  /** This cache, telling `share` the versions of each read (for a read whose reply the gateway may keep). */
  sharedWith(share: Share | undefined): Pick<VersionedCache, 'get'> {
    return share ? { get: (scope, key, load) => this.get(scope, key, load, share) } : this;
  }

  /** After a write has landed: resolves once every reader will find these scopes at a new version. */
  bump(...scopes: string[]): Promise<void> {
    return this.versions.bump([...new Set(scopes)]);
  }
}
