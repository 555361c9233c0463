import { performance } from 'node:perf_hooks';
import { type Msg, type NatsConnection, RequestStrategy } from 'nats';
import { cacheStreamOf, cacheSubjectsOf, JS, type ServiceName } from '@clinic/contracts';
import { GroupCommit } from '../concurrency/group-commit';
import type { Logger } from '../process/logger';
import { counter, metricsEnabled } from '../process/metrics';
import { OncePerMinute } from '../process/once-per-minute';

/** How long a reader waits for the versions; after a failure, reads skip the cache for a second. */
const READ_WAIT_MS = 500;
const UNAVAILABLE_FOR_MS = 1_000;
/** How long a write keeps trying to store its marks before it fails. */
const MARK_WAIT_MS = 3_000;

/** Each scope's version: the sequence and time of its latest mark ('' when it has none). */
export type Versions = ReadonlyMap<string, string>;

const dropped = counter(
  'clinic_cache_messages_dropped_total',
  'Answers about cache versions that could not be read as the server sent them, by cache and reason',
  ['cache', 'reason'],
);

/**
 * A service's scope versions on its cache stream (contracts cacheStreamOf). A write stores one mark per scope it
 * changed before it answers; a reader asks for the latest mark of its scopes after it began, so a version it reads
 * is never older than an acknowledged write. Why that is exact: docs/CACHE.md.
 */
export class ScopeVersions {
  private readonly subjects: ReturnType<typeof cacheSubjectsOf>;
  private readonly stream: string;
  private readonly prefix: string;
  /** The reads, and the writes, of a moment share one request, sent after each of them asked. */
  private readonly reads = new GroupCommit<string, Versions>((scopes) => this.read([...new Set(scopes)]));
  private readonly marks = new GroupCommit<string>((scopes) => this.mark([...new Set(scopes)]));
  private unavailableUntil = 0;
  private readonly warnings: OncePerMinute;

  constructor(
    private readonly nc: NatsConnection,
    service: ServiceName,
    log: Logger,
    /** Names this cache in metrics and logs: `billing`, `gateway:billing`. */
    private readonly cache: string = service,
  ) {
    this.subjects = cacheSubjectsOf(service);
    this.stream = cacheStreamOf(service).name;
    this.prefix = this.subjects.version('');
    this.warnings = new OncePerMinute(log);
  }

  /** The versions of these scopes, read after this call; rejects when they cannot be proved current. */
  of(scopes: string[]): Promise<Versions> {
    if (performance.now() < this.unavailableUntil) return Promise.reject(new Error('cache stream unavailable'));
    return this.reads.submit(scopes);
  }

  /** Gives these scopes new versions; resolves once the stream holds every mark. */
  bump(scopes: string[]): Promise<void> {
    return this.marks.submit(scopes);
  }

  private async mark(scopes: string[]): Promise<void> {
    const deadline = performance.now() + MARK_WAIT_MS;
    const subjects = scopes.map(this.subjects.version);
    for (;;) {
      try {
        await Promise.all(subjects.map((subject) => this.nc.jetstream().publish(subject, '1', { timeout: 1_000 })));
        return;
      } catch (err) {
        if (performance.now() >= deadline) throw new Error('cache versions not stored in time', { cause: err });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  private async read(scopes: string[]): Promise<Versions> {
    try {
      // In a cluster a cut-off leader answers for a while: only a replica that holds this check mark is current.
      const checked = this.nc.info?.cluster ? await this.check() : 0;
      const wanted = scopes.map(this.subjects.version);
      const replies = await this.nc.requestMany(
        JS.directGet(this.stream),
        JSON.stringify({ multi_last: checked ? [...wanted, this.subjects.check] : wanted }),
        { strategy: RequestStrategy.SentinelMsg, maxWait: READ_WAIT_MS },
      );
      const versions = new Map(scopes.map((scope) => [scope, '']));
      let seenCheck = 0;
      for await (const msg of replies) {
        const code = msg.headers?.code ?? 0;
        if ((code === 404 && !checked) || (code === 204 && seenCheck >= checked)) return versions;
        if (code !== 0)
          throw new Error(`cache stream: ${code} ${msg.headers?.description}, at ${seenCheck} of ${checked}`);
        const [subject, seq, time] = this.headersOf(msg);
        const scope = subject.slice(this.prefix.length);
        if (subject === this.subjects.check) seenCheck = seq;
        else if (subject.startsWith(this.prefix) && versions.has(scope)) versions.set(scope, `${seq}@${time}`);
        else throw this.dropped(msg);
      }
      throw new Error('cache stream: no answer in time');
    } catch (err) {
      this.unavailableUntil = performance.now() + UNAVAILABLE_FOR_MS;
      this.warnings.warn('unavailable', { err, stream: this.stream }, 'cache versions unread; reads skip the cache');
      throw err;
    }
  }

  private async check(): Promise<number> {
    const ack = await this.nc.jetstream().publish(this.subjects.check, '1', { timeout: READ_WAIT_MS });
    if (ack.stream !== this.stream) throw new Error(`cache stream: stored in ${ack.stream}`);
    return ack.seq;
  }

  /** The server's own headers: it appends them to a publisher's, so a name given twice was forged. */
  private headersOf(msg: Msg): [string, number, string] {
    const [subject, seq, time] = ['Nats-Subject', 'Nats-Sequence', 'Nats-Time-Stamp'].map((name) => {
      const values = msg.headers?.values(name) ?? [];
      return values.length === 1 ? values[0]! : '';
    }) as [string, string, string];
    if (msg.data.length === 0 || !subject || !time || !/^[1-9]\d{0,15}$/.test(seq)) throw this.dropped(msg);
    return [subject, Number(seq), time];
  }

  /** An answer that is not the server's own about a subject asked for (a forged header, say). */
  private dropped(msg: Msg): Error {
    if (metricsEnabled()) dropped.inc({ cache: this.cache, reason: 'unreadable' });
    this.warnings.warn('unreadable', { subject: msg.subject, bytes: msg.data.length }, 'cache version dropped');
    return new Error('cache stream: unreadable answer');
  }
}
