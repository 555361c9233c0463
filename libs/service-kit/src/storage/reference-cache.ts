import type { RefKind } from '@clinic/contracts';
import type { ReferenceData, StoredRef } from './reference-data';
import type { VersionedCache } from '../cache/versioned-cache';

/** The cache scope of one kind of reference record: applying a record of the kind bumps it. */
export const refScope = (kind: RefKind): string => `refs:${kind}`;

/**
 * Reference records a service reads on every request (branches, users' names, doctors), kept per replica: one map per
 * kind, filled with the records asked for (null: no live record of that id), read anew once a record of the kind is
 * applied. Kinds not named are read from the database each time (patients: too many).
 */
export class ReferenceCache {
  constructor(
    private readonly refs: ReferenceData,
    private readonly cache: Pick<VersionedCache, 'get' | 'bump'>,
    private readonly kept: readonly RefKind[],
  ) {}

  /** Marks what is kept of a kind as changed, with the scopes of `alongside` (reads that show records of the kind). */
  async applied(kind: RefKind, alongside: string[] = []): Promise<void> {
    const scopes = [...(this.kept.includes(kind) ? [refScope(kind)] : []), ...alongside];
    if (scopes.length > 0) await this.cache.bump(...scopes);
  }

  /** The live record of an id, or null. */
  async get<K extends RefKind>(kind: K, id: number): Promise<StoredRef<K> | null> {
    return (await this.many(kind, [id])).get(id) ?? null;
  }

  /** The live records of these ids, by id (those with none are left out). */
  async many<K extends RefKind>(kind: K, ids: number[]): Promise<Map<number, StoredRef<K>>> {
    if (!this.kept.includes(kind)) return this.refs.many(kind, [...new Set(ids)]);
    // A map dropped meanwhile may still be filled here: no later read finds it.
    const known = await this.cache.get(refScope(kind), 'known', async () => new Map<number, StoredRef<K> | null>());
    const missing = [...new Set(ids)].filter((id) => !known.has(id));
    const found = missing.length > 0 ? await this.refs.many(kind, missing) : new Map<number, StoredRef<K>>();
    for (const id of missing) known.set(id, found.get(id) ?? null);
    return new Map(ids.flatMap((id) => (known.get(id) ? [[id, known.get(id)!]] : [])));
  }
}
