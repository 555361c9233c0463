import { LRUCache } from 'lru-cache';
import type { ScopeVersions, Versions } from './scope-versions';

/** Told the versions (`scope=version`) a reply's reads depend on, or null if unproved: the gateway may keep it. */
export type Share = (stamps: string[] | null) => void;

export type VersionSource = Pick<ScopeVersions, 'of' | 'bump'>;

type Entry = { scopes: string[]; stamp: string; value: unknown };

/** A stamp names each scope's version: equal stamps, no mark stored between the two reads. */
const stampsOf = (scopes: readonly string[], versions: Versions): string[] =>
  scopes.map((scope) => `${scope}=${versions.get(scope) ?? ''}`);

/**
 * Values kept with their scopes' versions read before they were loaded, answered (or joined while loading) only by a
 * read that finds the same versions after it began. A write bumps its scopes before it answers (docs/CACHE.md).
 */
export class VersionedCache {
  private readonly entries: LRUCache<string, Entry>;

  /** Bounds: 1,000 entries for 30 s (how long an entry outlives a change whose writer died before its mark). */
  constructor(
    private readonly versions: VersionSource,
    bounds?: Partial<LRUCache.OptionsBase<string, Entry, unknown>>,
  ) {
    this.entries = new LRUCache({ max: 1000, ttl: 30_000, ...bounds });
  }

  /** The value under `key`, read again once one of its scopes (a value may depend on several) has a new version. */
  async get<T>(scope: string | string[], key: string, load: () => Promise<T>, share?: Share): Promise<T> {
    const scopes = typeof scope === 'string' ? [scope] : scope;
    const stamps = await this.stamps(scopes);
    share?.(stamps);
    if (stamps === null) return load();
    const id = `${scopes.join('|')}\u0000${key}`;
    const kept = this.entries.get(id);
    if (kept?.stamp === stamps.join(',')) return kept.value as Promise<T>;
    const value = load();
    this.keep(id, scopes, stamps.join(','), value);
    value.catch(() => this.entries.get(id)?.value === value && this.entries.delete(id));
    return value;
  }

  /** Keeps a value read after these stamps (`scope=version,...`) were. */
  keep(id: string, scopes: string[], stamp: string, value: unknown): void {
    this.entries.set(id, { scopes, stamp, value });
  }

  /** The value kept under `id`, once its scopes' versions, read after this call, are found unchanged. */
  async find(id: string): Promise<unknown> {
    const kept = this.entries.get(id);
    const versions = kept && (await this.versions.of(kept.scopes).catch(() => null));
    return versions && stampsOf(kept.scopes, versions).join(',') === kept.stamp ? kept.value : undefined;
  }

  /** These scopes' stamps, read after this call (null: not proved). */
  async stamps(scopes: string[]): Promise<string[] | null> {
    const read = () => this.versions.of(scopes).catch(() => null);
    let versions = await read();
    const unmarked = scopes.filter((scope) => versions && !versions.get(scope));
    // No version is "none": that is also what a stream made anew would say of a scope marked before.
    if (unmarked.length > 0) versions = await this.versions.bump(unmarked).then(read, () => null);
    return versions && scopes.every((scope) => versions?.get(scope)) ? stampsOf(scopes, versions) : null;
  }

  /** After a write has landed: resolves once every reader will find these scopes at a new version. */
  bump(...scopes: string[]): Promise<void> {
    return scopes.length > 0 ? this.versions.bump(scopes) : Promise.resolve();
  }
}
