/**
 * Replies of hot reads kept in the gateway's memory, answered without a NATS
 * round trip and never stale (issue 31). For each service the gateway is one
 * more replica of the service's cache coherence (service-kit's
 * cache-coherence.ts): it renews a lease, applies every invalidation and
 * confirms it to its writer, so a write is acknowledged only once this
 * gateway has dropped what it changed, or can no longer answer from memory.
 *
 * A service marks a 200 it may share with the cache scopes it depends on and
 * the cache stream sequence its answer is current to (HeaderNames.cacheScopes,
 * cachePosition). The gateway keeps it only if
 * - its lease is the one it started with (same epoch, still valid), and no
 *   invalidation of those scopes reached it while the request was in flight
 *   (that invalidation may describe a write the answer did not see); and
 * - the service had applied every invalidation of those scopes this gateway
 *   knew of when it asked: a replica lagging behind it answers from its own
 *   memory what an acknowledged write is about to change.
 */
import type { NatsConnection } from 'nats';
import { HeaderNames, SERVICE_NAMES, type ServiceName } from '@clinic/contracts';
import {
  CacheCoherence,
  counter,
  metricsEnabled,
  ScopedEntries,
  type splitReply,
  type Logger,
  type RawReply,
} from '@clinic/service-kit';

export interface ReplyCacheSettings {
  /** Replies kept per service, at most (0: no reply cache). */
  maxEntries: number;
  /** A reply older than this is asked for again (a guard against an invalidation lost with a crashed writer). */
  maxAgeMs: number;
  /** The largest reply kept, and the bytes of the replies kept per service, at most. */
  maxBytes: number;
  maxTotalBytes: number;
  /** NATS_STREAM_REPLICAS (0: from the cluster), for the cache streams the gateway may create first. */
  streamReplicas?: number;
}

/** A request about to be forwarded whose reply may be kept. */
export interface PendingReply {
  service: ServiceName;
  key: string;
  epoch: number;
  /** The latest invalidation this gateway had applied when it asked. */
  mark: number;
}

/** A reply as splitReply gives it: kept so, a hit neither decodes nor copies it again. */
export type KeptReply = ReturnType<typeof splitReply>;

export type Lookup = { hit: KeptReply } | { pending: PendingReply | null };

class ServiceReplies {
  readonly entries: ScopedEntries<KeptReply>;

  constructor(
    readonly coherence: CacheCoherence,
    settings: ReplyCacheSettings,
  ) {
    this.entries = new ScopedEntries({
      maxEntries: settings.maxEntries,
      maxWeight: settings.maxTotalBytes,
      weigh: (reply: KeptReply) => reply.body.byteLength,
    });
    // Marks are the stream's sequences; a load in flight whose scopes' marks were forgotten is not kept.
    coherence.onInvalidated((scopes, seq) => this.entries.invalidate(scopes, () => this.entries.mark, seq));
    coherence.onNewEpoch(() => this.entries.clear());
  }
}

export class ReplyCache {
  private readonly outcomes = metricsEnabled()
    ? counter('clinic_gateway_reply_cache_total', "Reads by the gateway's reply cache outcome", ['service', 'outcome'])
    : null;

  private constructor(
    private readonly services: Map<ServiceName, ServiceReplies>,
    private readonly settings: ReplyCacheSettings,
  ) {}

  /** Joins each service's cache coherence; null when the reply cache is off. */
  static async start(nc: NatsConnection, log: Logger, settings: ReplyCacheSettings): Promise<ReplyCache | null> {
    if (settings.maxEntries <= 0) return null;
    const services = new Map<ServiceName, ServiceReplies>();
    for (const service of SERVICE_NAMES) {
      const coherence = await CacheCoherence.start({
        nc,
        service,
        log: log.child({ component: 'reply-cache', service }),
        member: true,
        writes: false,
        streamReplicas: settings.streamReplicas,
      });
      services.set(service, new ServiceReplies(coherence, settings));
    }
    return new ReplyCache(services, settings);
  }

  /** The kept reply under `key`, or what keeping the reply about to be asked for needs (null: not kept). */
  lookup(service: ServiceName, key: string): Lookup {
    const replies = this.services.get(service);
    if (!replies?.coherence.hot()) {
      this.outcomes?.inc({ service, outcome: 'not_current' });
      return { pending: null };
    }
    const hit = replies.entries.find(key);
    if (hit && Date.now() - hit.keptAt < this.settings.maxAgeMs) {
      this.outcomes?.inc({ service, outcome: 'hit' });
      return { hit: hit.value };
    }
    this.outcomes?.inc({ service, outcome: 'miss' });
    return { pending: { service, key, epoch: replies.coherence.epoch, mark: replies.entries.mark } };
  }

  /** Keeps a reply the service marked as shared, if it is current (see the header comment), as `split`. */
  keep(pending: PendingReply, reply: RawReply, split: KeptReply): void {
    const scopesHeader = reply.headers?.get(HeaderNames.cacheScopes);
    const position = Number(reply.headers?.get(HeaderNames.cachePosition) || Number.NaN);
    if (!scopesHeader || !Number.isSafeInteger(position) || reply.data.length > this.settings.maxBytes) return;
    const replies = this.services.get(pending.service);
    if (!replies || replies.coherence.epoch !== pending.epoch || !replies.coherence.hot()) return;
    const scopes = scopesHeader.split(',');
    const latest = replies.entries.latestInvalidation(scopes);
    if (latest > pending.mark || position < latest) return;
    // Its own bytes: the message's may share a buffer with others.
    replies.entries.keep(pending.key, scopes, { ...split, body: Buffer.from(split.body) });
  }

  /** Gives up the leases (writers stop waiting for this gateway) and stops following the streams. */
  async stop(): Promise<void> {
    await Promise.all([...this.services.values()].map((replies) => replies.coherence.stop()));
  }
}
