/**
 * Replies of hot reads kept in the gateway's memory with the versions the service read them at (its reply header
 * `x-cache-scopes: scope=version,...`), and answered only while a read of those versions, sent after the request
 * came, finds them unchanged (docs/CACHE.md). Writers never wait for it.
 */
import type { NatsConnection } from 'nats';
import { HeaderNames, SERVICE_NAMES, type ServiceName } from '@clinic/contracts';
import {
  counter,
  metricsEnabled,
  ScopeVersions,
  VersionedCache,
  type Logger,
  type RawReply,
  type splitReply,
} from '@clinic/service-kit';

/**
 * Per service: how many replies (0: no reply cache), for how long (a guard against a mark lost with a crashed writer),
 * the largest reply's bytes and all replies' bytes kept, at most (lru-cache's options).
 */
export type ReplyCacheSettings = Record<'max' | 'ttl' | 'maxEntrySize' | 'maxSize', number>;

/** A reply as splitReply gives it: kept so, a hit neither decodes nor copies it again. */
export type KeptReply = ReturnType<typeof splitReply>;

const STAMP = /^([\w:|-]{1,200})=\d{1,16}@[\w:.+-]{1,40}$/;

export class ReplyCache {
  private readonly outcomes = metricsEnabled()
    ? counter('clinic_gateway_reply_cache_total', "Reads by the gateway's reply cache outcome", ['service', 'outcome'])
    : null;
  private readonly services = new Map<ServiceName, VersionedCache>();

  constructor(nc: NatsConnection, log: Logger, settings: ReplyCacheSettings) {
    for (const service of SERVICE_NAMES) {
      const versions = new ScopeVersions(
        nc,
        service,
        log.child({ component: 'reply-cache', service }),
        `gateway:${service}`,
      );
      const sizeCalculation = (kept: { value: unknown }) => (kept.value as KeptReply).body.byteLength + 1;
      this.services.set(service, new VersionedCache(versions, { ...settings, sizeCalculation }));
    }
  }

  /** Null when the reply cache is off. */
  static start(nc: NatsConnection, log: Logger, settings: ReplyCacheSettings): ReplyCache | null {
    return settings.max > 0 ? new ReplyCache(nc, log, settings) : null;
  }

  /** The reply kept under `key`, once its versions are found unchanged. */
  async lookup(service: ServiceName, key: string): Promise<KeptReply | null> {
    const kept = (await this.services.get(service)?.find(key)) as KeptReply | undefined;
    this.outcomes?.inc({ service, outcome: kept ? 'hit' : 'miss' });
    return kept ?? null;
  }

  /** Keeps a reply the service marked as shared, with the versions it was read at. */
  keep(service: ServiceName, key: string, reply: RawReply, split: KeptReply): void {
    const stamp = reply.headers?.get(HeaderNames.cacheScopes) ?? '';
    const scopes = stamp.split(',').map((one) => STAMP.exec(one)?.[1] ?? '');
    if (!stamp || scopes.includes('')) return;
    // Its own bytes: the message's may share a buffer with others.
    this.services.get(service)?.keep(key, scopes, stamp, { ...split, body: Buffer.from(split.body) });
  }
}
