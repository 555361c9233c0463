import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import type { Logger } from './logger';
import { isDuplicateKeyError } from './mongo';

interface VersionDoc {
  _id: string;
  token: string;
}

interface Entry {
  token: string;
  value: unknown;
  loadedAt: number;
}

export interface VersionedCacheOptions {
  maxEntries?: number;
  /** Bounds staleness if a process died between a write and its bump. */
  maxAgeMs?: number;
}

/**
 * Read results kept in memory and validated against a version stamp in the
 * database, so that every replica answers what the database holds:
 * - a write calls `bump(scope)` once it has succeeded, giving the scope a new token;
 * - a read fetches the scope's token (one small document by `_id`, which
 *   FerretDB looks up through its index) and reuses its cached value only
 *   while the token is unchanged; the token is read before loading, so a
 *   write landing during the load changes it and the next read loads again.
 * It replaces scans that FerretDB v1 answers by decoding every document.
 */
export class VersionedCache {
  private readonly versions: Collection<VersionDoc>;
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;

  constructor(
    db: Db,
    private readonly log: Logger,
    options: VersionedCacheOptions = {},
  ) {
    this.versions = db.collection<VersionDoc>('cache_versions');
    this.maxEntries = options.maxEntries ?? 1000;
    this.maxAgeMs = options.maxAgeMs ?? 30_000;
  }

  async get<T>(scope: string, key: string, load: () => Promise<T>): Promise<T> {
    const token = (await this.versions.findOne({ _id: scope }))?.token ?? 'initial';
    const id = `${scope}\u0000${key}`;
    const hit = this.entries.get(id);
    if (hit && hit.token === token && Date.now() - hit.loadedAt < this.maxAgeMs) {
      // Most recently used last, for eviction.
      this.entries.delete(id);
      this.entries.set(id, hit);
      return hit.value as T;
    }
    const value = await load();
    this.entries.delete(id);
    this.entries.set(id, { token, value, loadedAt: Date.now() });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }

  /**
   * Marks what a scope covers as changed. Called after the write; a failure is
   * logged rather than failing a write that happened (maxAgeMs bounds the staleness).
   */
  async bump(...scopes: string[]): Promise<void> {
    await Promise.all(
      [...new Set(scopes)].map(async (scope) => {
        for (let attempt = 0; attempt < 3; attempt++) {
          try {
            await this.versions.updateOne({ _id: scope }, { $set: { token: randomUUID() } }, { upsert: true });
            this.dropLocal(scope);
            return;
          } catch (err) {
            if (isDuplicateKeyError(err)) continue; // two first upserts raced
            this.log.error({ err, scope }, 'cache version not bumped; cached reads may lag');
            this.dropLocal(scope);
            return;
          }
        }
      }),
    );
  }

  private dropLocal(scope: string): void {
    for (const id of this.entries.keys()) if (id.startsWith(`${scope}\u0000`)) this.entries.delete(id);
  }
}
