import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { GroupCommit } from './group-commit';
import type { Logger } from './logger';
import { isDuplicateKeyError } from './mongo';
import { retryPolicy } from './retry';

/** Two first upserts of a scope's version race on its _id: the loser tries again, twice at most. */
const versionUpsertRace = retryPolicy({ retryOn: isDuplicateKeyError, retries: 2 });

interface VersionDoc {
  _id: string;
  token: string;
}

interface Entry {
  scopes: string[];
  token: string;
  value: unknown;
  loadedAt: number;
}

export interface VersionedCacheOptions {
  maxEntries?: number;
  /**
   * Bounds staleness if a process died between a write and its bump: an entry
   * older than this is reloaded in the background while it is still answered.
   */
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
 *
 * Under load, reads of one scope's token are coalesced: a caller that arrives
 * while a token read is in flight waits for the next one, which starts after
 * it arrived and so sees every write that had finished by then. Callers that
 * read the same token share one load of a missing entry.
 */
interface TokenRound {
  running: boolean;
  waiting: Array<{ resolve(token: string): void; reject(err: unknown): void }>;
}

export class VersionedCache {
  private readonly versions: Collection<VersionDoc>;
  private readonly entries = new Map<string, Entry>();
  private readonly tokenRounds = new Map<string, TokenRound>();
  private readonly loading = new Map<string, Promise<unknown>>();
  private readonly limits: Required<VersionedCacheOptions>;
  /** Bumps asked for at about the same time: one new token per scope for all of them. */
  private readonly bumps = new GroupCommit<string>((scopes) => this.newTokens([...new Set(scopes)]));

  constructor(
    db: Db,
    private readonly log: Logger,
    options: VersionedCacheOptions = {},
  ) {
    this.versions = db.collection<VersionDoc>('cache_versions');
    this.limits = { maxEntries: options.maxEntries ?? 1000, maxAgeMs: options.maxAgeMs ?? 30_000 };
  }

  /**
   * The value cached under `key`, valid while the token of every scope is
   * unchanged (a value that depends on several kinds of data names each).
   */
  async get<T>(scope: string | string[], key: string, load: () => Promise<T>): Promise<T> {
    const scopes = typeof scope === 'string' ? [scope] : scope;
    const token = (await Promise.all(scopes.map((s) => this.readToken(s)))).join('|');
    const id = `${scopes.join('|')}\u0000${key}`;
    const hit = this.entries.get(id);
    if (hit && hit.token === token) {
      // Most recently used last, for eviction.
      this.entries.delete(id);
      this.entries.set(id, hit);
      if (Date.now() - hit.loadedAt >= this.limits.maxAgeMs) {
        // The token says nothing changed; the age limit only guards against a
        // lost bump, so refresh behind this answer instead of making it wait
        // (a summary over 10,000 bills takes seconds to recompute on FerretDB).
        this.load(id, scopes, token, load).catch((err: unknown) =>
          this.log.warn({ err, scopes }, 'cache refresh failed; kept the entry'),
        );
      }
      return hit.value as T;
    }
    return this.load(id, scopes, token, load);
  }

  /** One load per entry and token, shared by whoever asks while it runs. */
  private load<T>(id: string, scopes: string[], token: string, load: () => Promise<T>): Promise<T> {
    const loadKey = `${id}\u0000${token}`;
    let pending = this.loading.get(loadKey) as Promise<T> | undefined;
    if (!pending) {
      pending = load().then((value) => {
        this.entries.delete(id);
        this.entries.set(id, { scopes, token, value, loadedAt: Date.now() });
        if (this.entries.size > this.limits.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
        return value;
      });
      this.loading.set(loadKey, pending);
      const forget = () => this.loading.delete(loadKey);
      pending.then(forget, forget);
    }
    return pending;
  }

  private readToken(scope: string): Promise<string> {
    return new Promise((resolve, reject) => {
      let round = this.tokenRounds.get(scope);
      if (!round) {
        round = { running: false, waiting: [] };
        this.tokenRounds.set(scope, round);
      }
      round.waiting.push({ resolve, reject });
      if (!round.running) this.runTokenRound(scope, round);
    });
  }

  private runTokenRound(scope: string, round: TokenRound): void {
    const callers = round.waiting;
    round.waiting = [];
    round.running = true;
    this.versions
      .findOne({ _id: scope })
      .then(
        (doc) => {
          for (const caller of callers) caller.resolve(doc?.token ?? 'initial');
        },
        (err: unknown) => {
          for (const caller of callers) caller.reject(err);
        },
      )
      .finally(() => {
        round.running = false;
        if (round.waiting.length > 0) this.runTokenRound(scope, round);
        else this.tokenRounds.delete(scope);
      });
  }

  /**
   * Marks what a scope covers as changed. Called after the write; a failure is
   * logged rather than failing a write that happened (maxAgeMs bounds the staleness).
   * Bumps of a scope asked for while one is being written share the next one.
   */
  async bump(...scopes: string[]): Promise<void> {
    const unique = [...new Set(scopes)];
    await this.bumps.submit(unique);
    for (const scope of unique) this.dropLocal(scope);
  }

  private async newTokens(scopes: string[]): Promise<void> {
    await Promise.all(
      scopes.map(async (scope) => {
        try {
          await versionUpsertRace.execute(() =>
            this.versions.updateOne({ _id: scope }, { $set: { token: randomUUID() } }, { upsert: true }),
          );
        } catch (err) {
          this.log.error({ err, scope }, 'cache version not bumped; cached reads may lag');
        }
      }),
    );
  }

  private dropLocal(scope: string): void {
    for (const [id, entry] of this.entries) if (entry.scopes.includes(scope)) this.entries.delete(id);
  }
}
