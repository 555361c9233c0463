import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Msg, type NatsConnection, RequestStrategy } from 'nats';
import { cacheStreamOf, cacheSubjectsOf, JS, type ServiceName } from '@clinic/contracts';
import { GroupCommit } from '../concurrency/group-commit';
import type { Logger } from '../process/logger';
import { counter } from '../process/metrics';
import { OncePerMinute } from '../process/once-per-minute';

/** A read waits this long for the versions; after a failure, reads skip the cache for twice as long. */
const READ_WAIT_MS = 500;
const MARK_WAIT_MS = 3_000;
/** The server answers at most 1,024 marks at once. */
const MAX_SUBJECTS = 1_000;
const SERVER_HEADERS = ['Nats-Subject', 'Nats-Sequence', 'Nats-Time-Stamp', 'Nats-Num-Pending', 'Nats-UpTo-Sequence'];

/** Each scope's version: the sequence and time of its latest mark (absent when it has none). */
export type Versions = ReadonlyMap<string, string>;

const dropped = counter('clinic_cache_messages_dropped_total', 'Cache marks with forged headers', ['cache', 'reason']);

/**
 * A service's scope versions on its cache stream: a write stores a mark per scope it changed before it answers, and a
 * read asks for its scopes' latest marks after it began. Nobody subscribes to a mark. Why that is exact: docs/CACHE.md.
 */
export class ScopeVersions {
  private readonly subjects: ReturnType<typeof cacheSubjectsOf>;
  private readonly stream: string;
  /** The reads, and the writes, of a moment share one request, sent after each of them asked. */
  private readonly reads = new GroupCommit<string, Versions>((scopes) => this.read([...new Set(scopes)]));
  private readonly marks = new GroupCommit<string>((scopes) => this.mark([...new Set(scopes)]));
  private readonly warnings: OncePerMinute;
  private unavailableUntil = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly service: ServiceName,
    log: Logger,
  ) {
    [this.subjects, this.stream] = [cacheSubjectsOf(service), cacheStreamOf(service).name];
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

  private async mark(scopes: string[], deadline = performance.now() + MARK_WAIT_MS): Promise<void> {
    const timeout = Math.min(1_000, Math.max(100, deadline - performance.now()));
    try {
      await Promise.all(scopes.map((s) => this.nc.jetstream().publish(this.subjects.version(s), '1', { timeout })));
    } catch (err) {
      // In a leader election the stream answers nothing, or "temporarily unavailable" (not retried by nats.js).
      if (performance.now() >= deadline) throw new Error('cache versions not stored in time', { cause: err });
      await sleep(100);
      await this.mark(scopes, deadline);
    }
  }

  private async read(scopes: string[]): Promise<Versions> {
    if (scopes.length > MAX_SUBJECTS) {
      const parts = [scopes.slice(0, MAX_SUBJECTS), scopes.slice(MAX_SUBJECTS)].map((part) => this.read(part));
      return new Map((await Promise.all(parts)).flatMap((part) => [...part]));
    }
    try {
      // In a cluster a cut-off replica answers for a while: only one that holds this check mark is current.
      const js = this.nc.info?.cluster && this.nc.jetstream();
      const checked = js ? (await js.publish(this.subjects.check, '1', { timeout: READ_WAIT_MS })).seq : 0;
      return await this.answer(JSON.stringify({ multi_last: scopes.map(this.subjects.version) }), checked);
    } catch (err) {
      this.unavailableUntil = performance.now() + READ_WAIT_MS * 2;
      this.warnings.warn('unavailable', { err, stream: this.stream }, 'cache versions unread; reads skip the cache');
      throw err;
    }
  }

  /** The versions a replica holding the check mark answers: one whose answer ends before it is asked again. */
  private async answer(request: string, checked: number, asks = 3): Promise<Versions> {
    // Not ended at an empty message (a mark may be stored empty): only at the server's own status.
    const strategy = { strategy: RequestStrategy.Timer, maxWait: READ_WAIT_MS };
    const [versions, prefix] = [new Map<string, string>(), this.subjects.version('')];
    for await (const msg of await this.nc.requestMany(JS.directGet(this.stream), request, strategy)) {
      const [subject, seq, time, pending, upTo] = this.serverHeadersOf(msg);
      const { code, description } = msg.headers ?? {};
      if (subject.startsWith(prefix)) versions.set(subject.slice(prefix.length), `${seq}@${time}`);
      else if (subject) throw new Error(`cache stream: ${subject} not asked for`);
      else if (code === 404 && versions.size === 0) return versions;
      else if (code !== 204 || pending !== '0') throw new Error(`cache stream: ${code} ${description}`);
      else if (Number(upTo) >= checked) return versions;
      // A replica behind its quorum catches up in a moment: asked again 5 ms later.
      else if (asks > 1) return sleep(5).then(() => this.answer(request, checked, asks - 1));
      else throw new Error('cache stream: three answers ended before the check mark');
    }
    throw new Error('cache stream: no answer in time');
  }

  /** The server appends its headers to those a publisher stored: the last of each is its own, any other forged. */
  private serverHeadersOf(msg: Msg): [string, string, string, string, string] {
    const values = SERVER_HEADERS.map((name) => msg.headers?.values(name) ?? []);
    const own = values.map((all) => all.at(-1) ?? '') as [string, string, string, string, string];
    if (values.some((all) => all.length > 1)) {
      dropped.inc({ cache: this.service, reason: 'forged' });
      this.warnings.warn('forged', { subject: own[0] }, 'cache mark with forged headers');
    }
    return own;
  }
}
