import type { RefKind } from '@clinic/contracts';
import type { ReferenceData, StoredRef } from './reference-data';
import type { VersionedCache } from '../cache/versioned-cache';

/** The cache scope of one kind of reference record: applying a record of the kind bumps it. */
export const refScope = (kind: RefKind): string => `refs:${kind}`;

/**
 * Reference records a service reads on every request (branches, users' names, doctors), kept per replica and read anew
 * once a record of the kind is applied. Kinds not named are read from the database each time (patients: too many).
 */
export class ReferenceCache {
  constructor(
    private readonly refs: ReferenceData,
    private readonly cache: Pick<VersionedCache, 'get' | 'bump'>,
    private readonly kept: readonly RefKind[],
  ) {}

  /** Marks what is kept of a kind as changed, with the scopes of `alongside` (reads that show records of the kind). */
  applied(kind: RefKind, alongside: string[] = []): Promise<void> {
    return this.cache.bump(...(this.kept.includes(kind) ? [refScope(kind)] : []), ...alongside);
  }

  async get<K extends RefKind>(kind: K, id: number): Promise<StoredRef<K> | null> {
    return (await this.many(kind, [id])).get(id) ?? null;
  }

  /** The live records of these ids, by id (those with none are left out); a kept map is shared, not to be changed. */
  many<K extends RefKind>(kind: K, ids: number[]): Promise<ReadonlyMap<number, StoredRef<K>>> {
    const unique = [...new Set(ids)].sort((a, b) => a - b);
    const load = () => this.refs.many(kind, unique);
    return this.kept.includes(kind) ? this.cache.get(refScope(kind), unique.join(','), load) : load();
  }
}
