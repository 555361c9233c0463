/**
 * Replies of hot reads kept in the gateway's memory, answered without a NATS
 * round trip to the service and never stale: the gateway follows each
 * service's invalidations like one more replica (service-kit CoherentCache),
 * and answers a kept reply only once it has applied every invalidation the
 * service's cache stream held when the request came (one request to the
 * stream's leader, shared by the hits of the moment). Writers never wait for it.
 *
 * A service marks a 200 it may share with the cache scopes it depends on
 * (HeaderNames.cacheScopes); the reply is kept only if none of them was
 * invalidated while the request was in flight.
 */
import type { NatsConnection, Subscription } from 'nats';
import { HeaderNames, SERVICE_NAMES, type ServiceName } from '@clinic/contracts';
import {
  CoherentCache,
  counter,
  InvalidationLog,
  metricsEnabled,
  type LoadTicket,
  type Logger,
  type RawReply,
  type splitReply,
} from '@clinic/service-kit';

export interface ReplyCacheSettings {
  /** Replies kept per service, at most (0: no reply cache). */
  maxEntries: number;
  /** A reply older than this is asked for again (a guard against an invalidation lost with a crashed writer). */
  maxAgeMs: number;
  /** The largest reply kept, and the bytes of the replies kept per service, at most. */
  maxBytes: number;
  maxTotalBytes: number;
}

/** A reply as splitReply gives it: kept so, a hit neither decodes nor copies it again. */
export type KeptReply = ReturnType<typeof splitReply>;

/** A request about to be forwarded whose reply may be kept. */
export interface PendingReply {
  service: ServiceName;
  key: string;
  ticket: LoadTicket;
}

export type Lookup = { hit: KeptReply } | { pending: PendingReply | null };

interface ServiceReplies {
  cache: CoherentCache<KeptReply>;
  log: InvalidationLog;
  following: Subscription;
}

export class ReplyCache {
  private readonly outcomes = metricsEnabled()
    ? counter('clinic_gateway_reply_cache_total', "Reads by the gateway's reply cache outcome", ['service', 'outcome'])
    : null;

  private constructor(
    private readonly services: Map<ServiceName, ServiceReplies>,
    private readonly settings: ReplyCacheSettings,
  ) {}

  /** Follows each service's invalidations; null when the reply cache is off. */
  static async start(nc: NatsConnection, log: Logger, settings: ReplyCacheSettings): Promise<ReplyCache | null> {
    if (settings.maxEntries <= 0) return null;
    const services = new Map<ServiceName, ServiceReplies>();
    for (const service of SERVICE_NAMES) {
      const invalidations = new InvalidationLog(
        nc,
        service,
        log.child({ component: 'reply-cache', service }),
        `gateway:${service}`,
      );
      const cache = new CoherentCache<KeptReply>({
        maxEntries: settings.maxEntries,
        maxWeight: settings.maxTotalBytes,
        weigh: (reply) => reply.body.byteLength,
        latest: () => invalidations.latest(),
        onRestart: (reason) => invalidations.restarted(reason),
      });
      const following = invalidations.follow((stored) => cache.deliver(stored));
      // Starts at the stream's latest; if it does not answer now, the first hit's check starts it instead.
      invalidations.latest().then(
        (seq) => cache.follower.restart(seq, 'start'),
        () => undefined,
      );
      services.set(service, { cache, log: invalidations, following });
    }
    return new ReplyCache(services, settings);
  }

  /** The kept reply under `key` once proved current, or what keeping the reply about to be asked for needs. */
  async lookup(service: ServiceName, key: string): Promise<Lookup> {
    const replies = this.services.get(service);
    if (!replies) return { pending: null };
    const ticket = replies.cache.begin();
    const hit = await replies.cache.current(key);
    if (hit && Date.now() - hit.keptAt < this.settings.maxAgeMs) {
      this.outcomes?.inc({ service, outcome: 'hit' });
      return { hit: hit.value };
    }
    this.outcomes?.inc({ service, outcome: 'miss' });
    return { pending: { service, key, ticket } };
  }

  /** Keeps a reply the service marked as shared, unless one of its scopes was invalidated since it was asked for. */
  keep(pending: PendingReply, reply: RawReply, split: KeptReply): void {
    const scopesHeader = reply.headers?.get(HeaderNames.cacheScopes);
    if (!scopesHeader || reply.data.length > this.settings.maxBytes) return;
    const replies = this.services.get(pending.service);
    // Its own bytes: the message's may share a buffer with others.
    replies?.cache.keep(pending.ticket, pending.key, scopesHeader.split(','), {
      ...split,
      body: Buffer.from(split.body),
    });
  }

  async stop(): Promise<void> {
    for (const { following, log } of this.services.values()) {
      following.unsubscribe();
      await log.stop();
    }
  }
}
