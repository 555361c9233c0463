import { performance } from 'node:perf_hooks';
import type { Msg, NatsConnection, Subscription } from 'nats';
import { cacheStreamOf, cacheSubjectsOf, JS, type ServiceName } from '@clinic/contracts';
import { GroupCommit } from '../concurrency/group-commit';
import { counter, metricsEnabled } from '../process/metrics';
import type { Logger } from '../process/logger';
import { OncePerMinute } from '../process/once-per-minute';
import type { RestartReason, StoredInvalidation } from './follower';

/** How long a write keeps trying to store its invalidation before it fails (and it is stored later). */
const STORE_WAIT_MS = 3_000;
/** How long a reader waits for the stream's latest sequence; after a failure, reads skip the cache this long. */
const LATEST_TIMEOUT_MS = 500;
const UNAVAILABLE_FOR_MS = 1_000;
/** The most scopes, and the longest scope, one invalidation may name. */
const MAX_SCOPES = 1_000;
const SCOPE = /^[\w:.|-]{1,200}$/;
const EMPTY_INVALIDATION = JSON.stringify({ s: [] });

export type DropReason = 'unreadable' | 'malformed' | 'foreign';

const dropped = counter(
  'clinic_cache_messages_dropped_total',
  'Messages on a cache subject that were not applied as sent, by cache and reason',
  ['cache', 'reason'],
);
const restarts = counter(
  'clinic_cache_restarts_total',
  'Times a cache emptied itself (gap, unreadable, lagging), by cache and reason',
  ['cache', 'reason'],
);

/**
 * A service's cache stream (contracts cacheStreamOf), as its caches use it:
 * writers store invalidations; every cache follows what the stream republishes
 * (no consumer) and asks the leader for the latest sequence before a hit.
 */
export class InvalidationLog {
  private readonly subjects: ReturnType<typeof cacheSubjectsOf>;
  private readonly stream: string;
  /** Readers of the moment share one query, sent after each of them asked. */
  private readonly latestQuery = new GroupCommit<never, number>(() => this.askLatest());
  private unavailableUntil = 0;
  private readonly writes = new GroupCommit<string>((scopes) => this.storeNow([...new Set(scopes)]));
  private readonly unsent = new Set<string>();
  private retrying: NodeJS.Timeout | null = null;
  private readonly warnings: OncePerMinute;

  constructor(
    private readonly nc: NatsConnection,
    readonly service: ServiceName,
    log: Logger,
    /** Names this cache in metrics and logs: `billing`, `gateway:billing`. */
    private readonly cache: string = service,
  ) {
    this.subjects = cacheSubjectsOf(service);
    this.stream = cacheStreamOf(service).name;
    this.warnings = new OncePerMinute(log);
  }

  /** Stores an invalidation of these scopes (concurrent ones in one message); resolves once the stream has it. */
  store(scopes: string[]): Promise<void> {
    return this.writes.submit(scopes);
  }

  private async storeNow(scopes: string[]): Promise<void> {
    const deadline = performance.now() + STORE_WAIT_MS;
    for (;;) {
      try {
        await this.nc.jetstream().publish(this.subjects.invalidations, JSON.stringify({ s: scopes }), {
          timeout: LATEST_TIMEOUT_MS * 2,
        });
        return;
      } catch (err) {
        if (performance.now() >= deadline) {
          this.storeLater(scopes);
          throw new Error('cache invalidation not stored in time; stored later', { cause: err });
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** An invalidation a write gave up on is still stored, as soon as the stream takes it. */
  private storeLater(scopes: string[]): void {
    for (const scope of scopes) this.unsent.add(scope);
    this.retrying ??= setInterval(() => {
      const pending = [...this.unsent];
      this.nc
        .jetstream()
        .publish(this.subjects.invalidations, JSON.stringify({ s: pending }), { timeout: 1_000 })
        .then(() => {
          for (const scope of pending) this.unsent.delete(scope);
          if (this.unsent.size === 0 && this.retrying) {
            clearInterval(this.retrying);
            this.retrying = null;
          }
        })
        .catch((err: unknown) => this.warnings.warn('unsent', { err }, 'cache invalidation still not stored'));
    }, 1_000);
  }

  /** The sequence of the stream's latest invalidation (or later), from a leader that holds it, asked after this call. */
  latest(): Promise<number> {
    if (performance.now() < this.unavailableUntil) return Promise.reject(new Error('cache stream unavailable'));
    return this.latestQuery.submit([]);
  }

  private async askLatest(): Promise<number> {
    try {
      return this.nc.info?.cluster ? await this.storeMark() : await this.leaderLatest();
    } catch (err) {
      this.unavailableUntil = performance.now() + UNAVAILABLE_FOR_MS;
      this.warnings.warn(
        'unavailable',
        { err, stream: this.stream },
        'cache stream not answering; reads skip the cache',
      );
      throw err;
    }
  }

  /**
   * In a cluster, a leader cut off from its peers answers for its stream until it notices (10 to 20 s), while the
   * others elect a leader and store: only a leader with its quorum stores, so the check stores an empty invalidation.
   */
  private async storeMark(): Promise<number> {
    const ack = await this.nc
      .jetstream()
      .publish(this.subjects.invalidations, EMPTY_INVALIDATION, { timeout: LATEST_TIMEOUT_MS });
    if (ack.stream !== this.stream) throw new Error(`cache stream: stored in ${ack.stream}`);
    return ack.seq;
  }

  /** On one server, the stream's only leader answers its latest sequence. */
  private async leaderLatest(): Promise<number> {
    const reply = await this.nc.request(
      JS.msgGet(this.stream),
      JSON.stringify({ last_by_subj: this.subjects.invalidations }),
      { timeout: LATEST_TIMEOUT_MS },
    );
    const answer = reply.json<{ message?: { seq?: unknown }; error?: { err_code?: number; description?: string } }>();
    if (answer.error?.err_code === 10037) return 0; // nothing stored yet
    const seq = answer.message?.seq;
    if (!Number.isSafeInteger(seq)) throw new Error(`cache stream: ${answer.error?.description ?? 'no sequence'}`);
    return seq as number;
  }

  /** Hands each invalidation the stream republishes to `deliver`, in order; what cannot be read is counted. */
  follow(deliver: (stored: StoredInvalidation) => void): Subscription {
    return this.nc.subscribe(this.subjects.stored, {
      callback: (err, msg) => {
        const stored = err ? null : this.read(msg);
        if (stored) deliver(stored);
      },
    });
  }

  /**
   * A republished message, checked as any input: one of another stream is ignored; one of this stream that
   * cannot be applied as sent empties the caches (null scopes; seq 0 when it cannot even be placed).
   */
  private read(msg: Msg): StoredInvalidation | null {
    if (msg.headers?.get('Nats-Stream') !== this.stream) {
      this.drop('foreign', msg, 0, 0);
      return null;
    }
    // The server appends its own headers to a publisher's: a name given twice was forged, and nothing is placed by it.
    const [seq, previous] = ['Nats-Sequence', 'Nats-Last-Sequence'].map((name) => {
      const values = msg.headers?.values(name) ?? [];
      return values.length === 1 ? Number(values[0] || Number.NaN) : Number.NaN;
    }) as [number, number];
    if (
      !Number.isSafeInteger(seq) ||
      !Number.isSafeInteger(previous) ||
      seq < 1 ||
      (msg.headers?.values('Nats-Stream').length ?? 0) !== 1
    )
      return this.drop('unreadable', msg, 0, 0);
    let scopes: unknown;
    try {
      scopes = (JSON.parse(new TextDecoder().decode(msg.data)) as { s?: unknown }).s;
    } catch {
      return this.drop('malformed', msg, seq, previous);
    }
    const valid =
      Array.isArray(scopes) &&
      scopes.length <= MAX_SCOPES &&
      scopes.every((scope) => typeof scope === 'string' && SCOPE.test(scope));
    return valid ? { seq, previous, scopes: scopes as string[] } : this.drop('malformed', msg, seq, previous);
  }

  private drop(reason: DropReason, msg: Msg, seq: number, previous: number): StoredInvalidation {
    if (metricsEnabled()) dropped.inc({ cache: this.cache, reason });
    this.warnings.warn(reason, { subject: msg.subject, bytes: msg.data.length, seq }, 'cache message dropped');
    return { seq, previous, scopes: null };
  }

  /** Counts a cache's restart (and warns at most once a minute). */
  restarted(reason: RestartReason): void {
    if (reason === 'start') return;
    if (metricsEnabled()) restarts.inc({ cache: this.cache, reason });
    this.warnings.warn(`restart:${reason}`, { cache: this.cache }, 'cache emptied; starting again');
  }

  /** Stops retrying, after one last try to store what was not (a process stopping; what still fails ages out). */
  async stop(): Promise<void> {
    if (this.retrying) clearInterval(this.retrying);
    this.retrying = null;
    if (this.unsent.size === 0) return;
    await this.nc
      .jetstream()
      .publish(this.subjects.invalidations, JSON.stringify({ s: [...this.unsent] }), { timeout: 1_000 })
      .catch((err: unknown) => this.warnings.warn('unsent', { err }, 'cache invalidation lost at stop'));
  }
}
