import { performance } from 'node:perf_hooks';
import { type Msg, type NatsConnection, RequestStrategy } from 'nats';
import { cacheStreamOf, cacheSubjectsOf, JS, type ServiceName } from '@clinic/contracts';
import { GroupCommit } from '../concurrency/group-commit';
import type { Logger } from '../process/logger';
import { counter, metricsEnabled } from '../process/metrics';
import { OncePerMinute } from '../process/once-per-minute';

/** A read waits this long for the versions; after a failure, reads skip the cache for a second. */
const READ_WAIT_MS = 500;
/** A write tries this long to store its marks. */
const MARK_WAIT_MS = 3_000;
/** The server answers at most 1,024 marks at once: more scopes are asked in parts. */
const MAX_SUBJECTS = 1_000;
const SERVER_HEADERS = ['Nats-Subject', 'Nats-Sequence', 'Nats-Time-Stamp', 'Nats-Num-Pending', 'Nats-UpTo-Sequence'];

/** Each scope's version: the sequence and time of its latest mark (absent when it has none). */
export type Versions = ReadonlyMap<string, string>;

const dropped = counter(
  'clinic_cache_messages_dropped_total',
  "Cache marks read with the server's headers forged by their publisher (the server's own taken), by cache and reason",
  ['cache', 'reason'],
);

/**
 * A service's scope versions on its cache stream (contracts cacheStreamOf). A write stores one mark per scope it
 * changed before it answers; a read asks for its scopes' latest marks after it began, so a version it reads is never
 * older than an acknowledged write. Nobody subscribes to a mark. Why that is exact: docs/CACHE.md.
 */
export class ScopeVersions {
  private readonly subjects: ReturnType<typeof cacheSubjectsOf>;
  private readonly stream: string;
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
    for (;;) {
      const timeout = Math.min(1_000, Math.max(100, deadline - performance.now()));
      try {
        await Promise.all(scopes.map((s) => this.nc.jetstream().publish(this.subjects.version(s), '1', { timeout })));
        return;
      } catch (err) {
        // During a leader election the stream answers nothing, or "temporarily unavailable" (which nats.js's
        // publish `retries` does not retry): a mark only gives a new version, so it is sent again.
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
      // In a cluster a cut-off replica answers for a while: only one that holds this check mark is current.
      const check =
        this.nc.info?.cluster && this.nc.jetstream().publish(this.subjects.check, '1', { timeout: READ_WAIT_MS });
      const checked = check ? (await check).seq : 0;
      const request = JSON.stringify({ multi_last: scopes.map(this.subjects.version) });
      // A replica behind its quorum (its answer ends before the check mark) catches up in a moment: asked again.
      for (let tries = 0; tries < 3; tries++) {
        const versions = await this.answer(request, checked);
        if (versions) return versions;
      }
      throw new Error('cache stream: three answers ended before the check mark');
    } catch (err) {
      this.unavailableUntil = performance.now() + READ_WAIT_MS * 2;
      this.warnings.warn('unavailable', { err, stream: this.stream }, 'cache versions unread; reads skip the cache');
      throw err;
    }
  }

  /** The versions one replica answers, or null when its answer ends before the check mark (it is behind). */
  private async answer(request: string, checked: number): Promise<Versions | null> {
    // Not ended at an empty message (a mark may be stored empty): only at the server's own status.
    const strategy = { strategy: RequestStrategy.Timer, maxWait: READ_WAIT_MS };
    const [versions, prefix] = [new Map<string, string>(), this.subjects.version('')];
    for await (const msg of await this.nc.requestMany(JS.directGet(this.stream), request, strategy)) {
      const [subject, seq, time, pending, upTo] = this.serverHeadersOf(msg);
      if (subject.startsWith(prefix)) versions.set(subject.slice(prefix.length), `${seq}@${time}`);
      else if (subject) throw new Error(`cache stream: ${subject} not asked for`);
      else if (msg.headers?.code === 404 && versions.size === 0) return versions;
      else if (msg.headers?.code === 204 && pending === '0') return Number(upTo) >= checked ? versions : null;
      else throw new Error(`cache stream: ${msg.headers?.code} ${msg.headers?.description}`);
    }
    throw new Error('cache stream: no answer in time');
  }

  /** The server appends its headers to those a publisher stored: the last of each is its own, any other forged. */
  private serverHeadersOf(msg: Msg): [string, string, string, string, string] {
    const values = SERVER_HEADERS.map((name) => msg.headers?.values(name) ?? []);
    if (values.some((all) => all.length > 1)) {
      if (metricsEnabled()) dropped.inc({ cache: this.cache, reason: 'forged' });
      this.warnings.warn('forged', { subject: msg.subject, bytes: msg.data.length }, 'cache mark with forged headers');
    }
    return values.map((all) => all.at(-1) ?? '') as [string, string, string, string, string];
  }
}
