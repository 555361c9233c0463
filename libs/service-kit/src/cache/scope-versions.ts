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
/** The server answers with at most 1,024 marks at once: more scopes are asked in parts. */
const MAX_SUBJECTS = 1_000;

/** Each scope's version: the sequence and time of its latest mark (absent when it has none). */
export type Versions = ReadonlyMap<string, string>;

const dropped = counter(
  'clinic_cache_messages_dropped_total',
  "Cache marks read with the server's headers forged by their publisher (the server's own taken), by cache and reason",
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
      const timeout = Math.min(1_000, Math.max(100, deadline - performance.now()));
      try {
        await Promise.all(subjects.map((subject) => this.nc.jetstream().publish(subject, '1', { timeout })));
        return;
      } catch (err) {
        if (performance.now() >= deadline) throw new Error('cache versions not stored in time', { cause: err });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  private async read(scopes: string[]): Promise<Versions> {
    if (scopes.length > MAX_SUBJECTS) {
      const parts = [scopes.slice(0, MAX_SUBJECTS), scopes.slice(MAX_SUBJECTS)].map((part) => this.read(part));
      return new Map((await Promise.all(parts)).flatMap((part) => [...part]));
    }
    try {
      // In a cluster a cut-off leader answers for a while: only a replica that holds this check mark is current.
      const checked = this.nc.info?.cluster ? await this.check() : 0;
      const wanted = new Set(scopes);
      const replies = await this.nc.requestMany(
        JS.directGet(this.stream),
        JSON.stringify({
          multi_last: [...scopes.map(this.subjects.version), ...(checked ? [this.subjects.check] : [])],
        }),
        { strategy: RequestStrategy.SentinelMsg, maxWait: READ_WAIT_MS },
      );
      const versions = new Map<string, string>();
      let seenCheck = 0;
      for await (const msg of replies) {
        const h = msg.headers;
        if (!h?.has('Nats-Subject')) {
          // The server's own status: nothing asked for has a mark, the end of all it sent, or a failure.
          if (versions.size === 0 && h?.code === 404 && h.description === 'No Results' && !checked) return versions;
          const end = h?.code === 204 && h.get('Nats-Num-Pending') === '0';
          if (end && Number(h.get('Nats-UpTo-Sequence')) >= checked) return versions;
          throw new Error(`cache stream: ${h?.code} ${h?.description}`);
        }
        const [subject, seq, time, pending] = this.serverHeadersOf(msg);
        const scope = subject.slice(this.prefix.length);
        if (subject === this.subjects.check) seenCheck = seq;
        else if (subject.startsWith(this.prefix) && wanted.has(scope)) versions.set(scope, `${seq}@${time}`);
        else throw new Error(`cache stream: ${subject} not asked for`);
        // A mark stored empty ends nats.js's reading (it looks like the end): what the server had left is asked again.
        if (msg.data.length > 0) continue;
        if (pending === '0' && seenCheck >= checked) return versions;
        const rest = await this.read(scopes.filter((one) => !versions.has(one)));
        return new Map([...versions, ...rest]);
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

  /** The server appends its headers to those a publisher stored: the last of each is its own, any other forged. */
  private serverHeadersOf(msg: Msg): [string, number, string, string] {
    const names = ['Nats-Subject', 'Nats-Sequence', 'Nats-Time-Stamp', 'Nats-Num-Pending'];
    const values = names.map((name) => msg.headers?.values(name) ?? []);
    if (values.some((all) => all.length > 1)) this.countForged(msg);
    const [subject, seq, time, pending] = values.map((all) => all.at(-1) ?? '') as [string, string, string, string];
    if (!/^[1-9]\d{0,15}$/.test(seq)) throw new Error('cache stream: an answer without its sequence');
    return [subject, Number(seq), time, pending];
  }

  /** A mark stored with the server's own headers forged: they are not read, and it is counted. */
  private countForged(msg: Msg): void {
    if (metricsEnabled()) dropped.inc({ cache: this.cache, reason: 'forged' });
    this.warnings.warn('forged', { subject: msg.subject, bytes: msg.data.length }, 'cache mark with forged headers');
  }
}
