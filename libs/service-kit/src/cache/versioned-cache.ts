import type { Logger } from '../process/logger';
import { CoherentCache, type LoadTicket } from './coherent-cache';
import type { RestartReason, StoredInvalidation, Timers } from './follower';

/** Told the cache scopes a reply depends on, for a read whose reply the gateway may keep (HandlerContext.share). */
export type Share = (scopes: string[]) => void;

/** A service's cache stream, as a replica's cache uses it (InvalidationLog). */
export interface InvalidationStream {
  store(scopes: string[]): Promise<void>;
  latest(): Promise<number>;
  restarted?(reason: RestartReason): void;
}

export interface VersionedCacheOptions {
  maxEntries?: number;
  /**
   * Bounds how long an entry may outlive a change that no invalidation told
   * (a process that died between its write and its invalidation): an entry
   * older than this is loaded again behind its answer.
   */
  maxAgeMs?: number;
  timers?: Timers;
  now?: () => number;
}

/**
 * A replica's read results, answered from memory once proved current
 * (CoherentCache): a write calls `bump` once it has landed and answers once
 * the invalidation is stored; it never waits for another replica.
 */
export class VersionedCache {
  private readonly cache: CoherentCache<unknown>;
  private readonly loading = new Map<string, { ticket: LoadTicket; scopes: string[]; result: Promise<unknown> }>();
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(
    private readonly stream: InvalidationStream,
    private readonly log: Logger,
    options: VersionedCacheOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.cache = new CoherentCache({
      maxEntries: options.maxEntries ?? 1000,
      latest: () => stream.latest(),
      onRestart: (reason) => stream.restarted?.(reason),
      timers: options.timers,
      now: this.now,
    });
  }

  /** An invalidation as the stream republished it (InvalidationLog.follow). */
  deliver(stored: StoredInvalidation): void {
    this.cache.deliver(stored);
  }

  /** The sequence of the last invalidation applied here: never beyond the stream's own. */
  get applied(): number {
    return this.cache.follower.position;
  }

  /** Starts at the stream's latest invalidation: nothing is kept before. */
  start(seq: number): void {
    this.cache.follower.restart(seq, 'start');
  }

  /** The value under `key`, valid until one of its scopes is invalidated (a value that depends on several names each). */
  async get<T>(scope: string | string[], key: string, load: () => Promise<T>, share?: Share): Promise<T> {
    const scopes = typeof scope === 'string' ? [scope] : scope;
    share?.(scopes);
    const id = `${scopes.join('|')}\u0000${key}`;
    const hit = await this.cache.current(id);
    if (!hit) return this.load(id, scopes, load);
    if (this.now() - hit.keptAt >= this.maxAgeMs) {
      // Only a lost invalidation would make it wrong: load again behind this answer rather than make it wait.
      this.loadNow(id, scopes, load).catch((err: unknown) =>
        this.log.warn({ err, scopes }, 'cache refresh failed; kept the entry'),
      );
    }
    return hit.value as T;
  }

  /** A load in progress is joined only once this replica is proved current and nothing it reads changed since it began. */
  private async load<T>(id: string, scopes: string[], load: () => Promise<T>): Promise<T> {
    const running = this.loading.get(id);
    if (running && (await this.cache.caughtUp()) && this.cache.keepable(running.ticket, scopes)) {
      return running.result as Promise<T>;
    }
    return this.loadNow(id, scopes, load);
  }

  private loadNow<T>(id: string, scopes: string[], load: () => Promise<T>): Promise<T> {
    const ticket = this.cache.begin();
    const result = load().then((value) => {
      this.cache.keep(ticket, id, scopes, value);
      return value;
    });
    const entry = { ticket, scopes, result };
    this.loading.set(id, entry);
    const forget = () => {
      if (this.loading.get(id) === entry) this.loading.delete(id);
    };
    result.then(forget, forget);
    return result;
  }

  /** This cache, telling `share` the scopes of each read (for a read whose reply the gateway may keep). */
  sharedWith(share: Share | undefined): Pick<VersionedCache, 'get'> {
    return share ? { get: (scope, key, load) => this.get(scope, key, load, share) } : this;
  }

  /** After a write has landed: drops what it changed here, and resolves once every cache can learn it. */
  async bump(...scopes: string[]): Promise<void> {
    const unique = [...new Set(scopes)];
    this.cache.drop(unique);
    await this.stream.store(unique);
  }
}
