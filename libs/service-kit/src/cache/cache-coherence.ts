/**
 * Keeps the read caches of a service's replicas exact without a database
 * round trip per read (issue 31): a replica answers from memory only while it
 * holds a lease, and a write is acknowledged only once every replica that may
 * hold a lease has dropped what the write changed, or its lease has run out.
 *
 * One JetStream stream per service (cacheStreamOf) puts two kinds of message
 * in one order, every replica following all of it (an ordered consumer):
 * - lease renewals: every LEASE_MS / 4 a replica publishes one on its own
 *   subject, noting when it sent it (r0). When the stream delivers it back,
 *   every message stored before it has been applied, so the replica is
 *   current as of r0: it may answer from memory until r0 + 0.9 * LEASE_MS.
 *   A replica that cannot renew (NATS, or a quorum of the stream, out of its
 *   reach) runs out within a lease and answers from the database; when it is
 *   current again it starts with an empty cache (a new epoch);
 * - invalidations: a writer, once its write has landed, publishes the scopes
 *   it changed and waits for the stream to deliver that message back to
 *   itself. By then it has seen every renewal stored before it: for each
 *   other replica, the latest. It then waits until each replica whose lease
 *   may still run has confirmed the invalidation (a core NATS message, sent
 *   once applied) or until that lease has run out: LEASE_MS after the writer
 *   received the renewal, on the writer's clock. A replica renewing after the
 *   invalidation applied it first, so it is never waited for.
 *
 * Storing a message in a replicated stream needs a quorum of its nodes: a replica cut off with a minority
 * of the cluster can neither renew nor publish, and the majority's writers wait out its lease. No clocks
 * are compared between machines: each process times its own intervals on its monotonic clock, assuming
 * those clocks run at the same rate to within a few percent (the replica's 10% margin).
 */
import { performance } from 'node:perf_hooks';
import {
  DeliverPolicy,
  nuid,
  type ConsumerMessages,
  type JetStreamClient,
  type JsMsg,
  type NatsConnection,
  type Subscription,
} from 'nats';
import { cacheStreamOf, cacheSubjectsOf, type ServiceName } from '@clinic/contracts';
import { GroupCommit } from '../storage/group-commit';
import { ensureStream, jetStreamManager, streamReplicas, whileStarting } from '../nats/jetstream';
import type { Logger } from '../process/logger';

/** How long a lease renewal lets a replica answer from memory, as writers count it. */
const LEASE_MS = 2_000;
/** What a replica counts of a lease: less than writers do, for clocks that run at slightly different rates. */
const [OWN_LEASE_SHARE, RENEWALS_PER_LEASE] = [0.9, 4];
/** How long a writer waits for the stream to take an invalidation before it publishes it again. */
const PUBLISH_TIMEOUT_MS = 1_000;
/** How long a writer keeps trying to have its invalidation confirmed before the write fails. */
const INVALIDATION_WAIT_MAX_MS = 10_000;

export interface CacheCoherenceOptions {
  nc: NatsConnection;
  service: ServiceName;
  log: Logger;
  /** A replica that answers reads from memory (it renews a lease, confirms invalidations); false: a writer only. */
  member: boolean;
  /** false: it never invalidates (the gateway's reply cache), so it takes no confirmations. */
  writes?: boolean;
  /** NATS_STREAM_REPLICAS (0: from the cluster). */
  streamReplicas?: number;
  leaseMs?: number;
}

/** Another replica as this one last heard of it: when its latest renewal reached this process (monotonic ms). */
interface Replica {
  heardAt: number;
  left: boolean;
}

/** An invalidation of this writer's, once the stream has taken it: whom it still waits for. */
interface Pending {
  seq: number;
  /** Replica id -> when its lease runs out (monotonic ms); filled once the stream delivered the invalidation. */
  waiting: Map<string, number> | null;
  done(err?: unknown): void;
  timer?: NodeJS.Timeout;
}

export class CacheCoherence {
  /** This process among the service's replicas (and as a writer). */
  readonly id = nuid.next();
  private readonly subjects: ReturnType<typeof cacheSubjectsOf>;
  private readonly js: JetStreamClient;
  private readonly leaseMs: number;
  private hotUntil = 0;
  /** How many times this replica became current after it was not: entries of an earlier epoch are never served. */
  private epochCount = 0;
  position = 0; // Read only: the stream sequence applied so far; an answer made now shows every invalidation up to it.
  private renewalCount = 0;
  private readonly renewalsSent = new Map<number, number>();
  private readonly replicas = new Map<string, Replica>();
  /** The highest invalidation each replica confirmed to this writer. */
  private readonly confirmedBy = new Map<string, number>();
  private readonly pending = new Map<number, Pending>();
  private readonly invalidatedListeners: Array<(scopes: string[], seq: number) => void> = [];
  private readonly epochListeners: Array<() => void> = [];
  private readonly batches = new GroupCommit<string>((scopes) => this.publishAndWait([...new Set(scopes)]));
  private messages: ConsumerMessages | null = null;
  private confirmations: Subscription | null = null;
  private renewing: NodeJS.Timeout | null = null;

  private constructor(private readonly options: CacheCoherenceOptions) {
    this.subjects = cacheSubjectsOf(options.service);
    this.js = options.nc.jetstream();
    this.leaseMs = options.leaseMs ?? LEASE_MS;
  }

  static async start(options: CacheCoherenceOptions): Promise<CacheCoherence> {
    const coherence = new CacheCoherence(options);
    await coherence.follow();
    return coherence;
  }

  /** Whether this replica may answer from memory now. */
  hot(): boolean {
    return performance.now() < this.hotUntil;
  }

  get epoch(): number {
    return this.epochCount;
  }

  /** Called with each invalidation's scopes and sequence, this process's own included, as the stream delivers them. */
  onInvalidated(listener: (scopes: string[], seq: number) => void): void {
    this.invalidatedListeners.push(listener);
  }

  /** Called when this replica becomes current again after it was not: what it held may have missed invalidations. */
  onNewEpoch(listener: () => void): void {
    this.epochListeners.push(listener);
  }

  /**
   * Resolves once no replica can answer from memory what these scopes held before now; invalidations asked for
   * at about the same time share one message. Rejects after INVALIDATION_WAIT_MAX_MS without a confirmation.
   */
  invalidate(scopes: string[]): Promise<void> {
    return this.batches.submit(scopes);
  }

  private async follow(): Promise<void> {
    const { nc, log, service, member } = this.options;
    const stream = cacheStreamOf(service);
    const jsm = await jetStreamManager(nc, log);
    await ensureStream(jsm, stream, log, streamReplicas(nc, this.options.streamReplicas));
    if (this.options.writes !== false)
      this.confirmations = nc.subscribe(this.subjects.applied(this.id), {
        callback: (_err, msg) => this.confirmed(msg.json<{ r: string; seq: number }>()),
      });
    // Each subject's latest message (every replica's latest renewal), then each new one in order; retried while a
    // new cluster elects the stream's leader. Short pulls (heartbeats every second): a lost consumer is remade soon.
    const follow = async () => {
      const opts = { deliver_policy: DeliverPolicy.LastPerSubject, filterSubjects: stream.subjects };
      const consumer = await this.js.consumers.get(stream.name, opts);
      return consumer.consume({ callback: (m) => this.delivered(m), expires: 2_000 });
    };
    this.messages = await whileStarting(log, { stream: stream.name }, 'cache stream not followed; retrying', follow);
    if (!member) return;
    this.renew();
    this.renewing = setInterval(() => this.renew(), this.leaseMs / RENEWALS_PER_LEASE);
  }

  private renew(): void {
    const n = ++this.renewalCount;
    const sentAt = performance.now();
    this.renewalsSent.set(n, sentAt);
    for (const [old, at] of this.renewalsSent) if (sentAt - at > this.leaseMs) this.renewalsSent.delete(old);
    // Not acknowledged: the stream's delivery of it back is what counts. A connection that is closed or
    // draining throws: the renewal is lost, as one the network dropped would be, and the lease runs out.
    this.send(this.subjects.lease(this.id), { n });
  }

  private send(subject: string, body: object): void {
    try {
      this.options.nc.publish(subject, JSON.stringify(body));
    } catch (err) {
      this.options.log.warn({ err, subject }, 'cache coherence message not sent');
    }
  }

  private delivered(m: JsMsg): void {
    this.position = m.seq;
    if (m.subject === this.subjects.invalidations) {
      const { w, s } = m.json<{ w: string; s: string[] }>();
      for (const listener of this.invalidatedListeners) listener(s, m.seq);
      if (w !== this.id && this.options.member) this.send(this.subjects.applied(w), { r: this.id, seq: m.seq });
    } else {
      this.renewed(m.subject.slice(this.subjects.lease('').length), m.json<{ n: number; leave?: boolean }>());
    }
    for (const entry of this.pending.values())
      if (entry.waiting === null && entry.seq <= m.seq) this.startWaiting(entry);
  }

  private renewed(replica: string, renewal: { n: number; leave?: boolean }): void {
    const now = performance.now();
    if (replica !== this.id) {
      if (this.options.writes !== false) this.replicas.set(replica, { heardAt: now, left: renewal.leave === true });
      return;
    }
    if (renewal.leave) return;
    const sentAt = this.renewalsSent.get(renewal.n);
    if (sentAt === undefined) return;
    const wasHot = now < this.hotUntil;
    this.hotUntil = Math.max(this.hotUntil, sentAt + this.leaseMs * OWN_LEASE_SHARE);
    if (!wasHot && this.hot()) {
      this.epochCount++;
      for (const listener of this.epochListeners) listener();
    }
  }

  private async publishAndWait(scopes: string[]): Promise<void> {
    const payload = JSON.stringify({ w: this.id, s: scopes });
    const giveUpAt = performance.now() + INVALIDATION_WAIT_MAX_MS;
    let lastError: unknown;
    while (performance.now() < giveUpAt) {
      let seq: number;
      try {
        seq = (await this.js.publish(this.subjects.invalidations, payload, { timeout: PUBLISH_TIMEOUT_MS })).seq;
      } catch (err) {
        lastError = err;
        await new Promise((resolve) => setTimeout(resolve, 100));
        continue;
      }
      return this.waitForReplicas(seq, giveUpAt);
    }
    throw new Error(`cache invalidation not confirmed within ${INVALIDATION_WAIT_MAX_MS} ms`, { cause: lastError });
  }

  private waitForReplicas(seq: number, giveUpAt: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const entry: Pending = {
        seq,
        waiting: null,
        done: (err) => {
          clearTimeout(entry.timer);
          clearTimeout(giveUp);
          this.pending.delete(seq);
          if (err) reject(err);
          else resolve();
        },
      };
      const giveUp = setTimeout(
        () => entry.done(new Error(`cache invalidation ${seq} not confirmed in time`)),
        giveUpAt - performance.now(),
      );
      this.pending.set(seq, entry);
      // The stream may have delivered it before it acknowledged it.
      if (this.position >= seq) this.startWaiting(entry);
    });
  }

  /** The invalidation is delivered back: every renewal before it is known. */
  private startWaiting(entry: Pending): void {
    const now = performance.now();
    entry.waiting = new Map();
    for (const [id, replica] of this.replicas) {
      const runsOutAt = replica.heardAt + this.leaseMs;
      if (runsOutAt <= now) {
        this.replicas.delete(id);
        this.confirmedBy.delete(id);
      } else if (!replica.left && (this.confirmedBy.get(id) ?? 0) < entry.seq) entry.waiting.set(id, runsOutAt);
    }
    this.settle(entry);
  }

  private confirmed({ r, seq }: { r: string; seq: number }): void {
    this.confirmedBy.set(r, Math.max(seq, this.confirmedBy.get(r) ?? 0));
    for (const entry of this.pending.values()) if (entry.seq <= seq && entry.waiting?.delete(r)) this.settle(entry);
  }

  /** Done when no replica is left to wait for; otherwise checked again when the next lease runs out. */
  private settle(entry: Pending): void {
    const now = performance.now();
    let next = Infinity;
    for (const [id, runsOutAt] of entry.waiting ?? []) {
      if (runsOutAt <= now) entry.waiting?.delete(id);
      else next = Math.min(next, runsOutAt);
    }
    clearTimeout(entry.timer);
    if (entry.waiting?.size === 0) entry.done();
    else if (next < Infinity) entry.timer = setTimeout(() => this.settle(entry), next - now + 1);
  }

  /** Stops answering from memory, tells writers not to wait for this replica, and stops following the stream. */
  async stop(): Promise<void> {
    this.hotUntil = 0;
    if (this.renewing) clearInterval(this.renewing);
    if (this.options.member) {
      await this.js
        .publish(this.subjects.lease(this.id), JSON.stringify({ n: 0, leave: true }), { timeout: PUBLISH_TIMEOUT_MS })
        .catch((err: unknown) => this.options.log.warn({ err }, 'cache lease not given up; writers wait it out'));
    }
    this.messages?.stop();
    this.confirmations?.unsubscribe();
    for (const entry of this.pending.values()) entry.done(new Error('stopping'));
  }
}
