/**
 * Replies of hot reads kept in the gateway's memory with the versions the service read them at (its reply header
 * `x-cache-scopes: scope=version,...`), and answered only while a read of those versions, sent after the request
 * came, finds them unchanged (docs/CACHE.md). Writers never wait for it.
 */
import type { NatsConnection } from 'nats';
import { LRUCache } from 'lru-cache';
import { HeaderNames, SERVICE_NAMES, type ServiceName } from '@clinic/contracts';
import {
  counter,
  metricsEnabled,
  ScopeVersions,
  stampsOf,
  type Logger,
  type RawReply,
  type splitReply,
} from '@clinic/service-kit';

export interface ReplyCacheSettings {
  /** Replies kept per service, at most (0: no reply cache). */
  maxEntries: number;
  /** A reply older than this is asked for again (a guard against a mark lost with a crashed writer). */
  maxAgeMs: number;
  /** The largest reply kept, and the bytes kept per service, at most. */
  maxBytes: number;
  maxTotalBytes: number;
}

/** A reply as splitReply gives it: kept so, a hit neither decodes nor copies it again. */
export type KeptReply = ReturnType<typeof splitReply>;

const STAMP = /^([\w:|-]{1,200})=(\d{1,16}@[\w:.+-]{1,40})?$/;

interface Kept {
  scopes: string[];
  stamp: string;
  reply: KeptReply;
}

export class ReplyCache {
  private readonly outcomes = metricsEnabled()
    ? counter('clinic_gateway_reply_cache_total', "Reads by the gateway's reply cache outcome", ['service', 'outcome'])
    : null;
  private readonly services = new Map<ServiceName, { versions: ScopeVersions; replies: LRUCache<string, Kept> }>();

  constructor(nc: NatsConnection, log: Logger, settings: ReplyCacheSettings) {
    for (const service of SERVICE_NAMES) {
      const versions = new ScopeVersions(
        nc,
        service,
        log.child({ component: 'reply-cache', service }),
        `gateway:${service}`,
      );
      const replies = new LRUCache<string, Kept>({
        max: settings.maxEntries,
        maxSize: settings.maxTotalBytes,
        maxEntrySize: settings.maxBytes,
        sizeCalculation: (kept) => kept.reply.body.byteLength + 1,
        ttl: settings.maxAgeMs,
      });
      this.services.set(service, { versions, replies });
    }
  }

  /** Null when the reply cache is off. */
  static start(nc: NatsConnection, log: Logger, settings: ReplyCacheSettings): ReplyCache | null {
    return settings.maxEntries > 0 ? new ReplyCache(nc, log, settings) : null;
  }

  /** The reply kept under `key`, once its versions are found unchanged. */
  async lookup(service: ServiceName, key: string): Promise<KeptReply | null> {
    const { versions, replies } = this.services.get(service)!;
    const kept = replies.get(key);
    const current =
      kept !== undefined &&
      (await versions.of(kept.scopes).then(
        (versions) => stampsOf(kept.scopes, versions).join(',') === kept.stamp,
        () => false,
      ));
    this.outcomes?.inc({ service, outcome: current ? 'hit' : 'miss' });
    return current ? kept.reply : null;
  }

  /** Keeps a reply the service marked as shared, with the versions it was read at. */
  keep(service: ServiceName, key: string, reply: RawReply, split: KeptReply): void {
    const stamp = reply.headers?.get(HeaderNames.cacheScopes) ?? '';
    const scopes = stamp.split(',').map((one) => STAMP.exec(one)?.[1]);
    if (!stamp || scopes.includes(undefined)) return;
    // Its own bytes: the message's may share a buffer with others.
    const kept = { scopes: scopes as string[], stamp, reply: { ...split, body: Buffer.from(split.body) } };
    this.services.get(service)!.replies.set(key, kept);
  }
}
