import type { NatsConnection } from 'nats';
import { HeaderNames, SERVICE_NAMES, type ServiceName } from '@clinic/contracts';
import { counter, ScopeVersions, VersionedCache } from '@clinic/service-kit';
import type { Logger, RawReply, SplitReply } from '@clinic/service-kit';

/** Per service, lru-cache's bounds: replies (0: no reply cache), their age, the largest reply's and all replies' bytes. */
export type ReplyCacheSettings = Record<'max' | 'ttl' | 'maxEntrySize' | 'maxSize', number>;

const outcomes = counter('clinic_gateway_reply_cache_total', 'Reply cache reads by outcome', ['service', 'outcome']);
const STAMP = /^([\w:|-]{1,200})=\d{1,16}@[\w:.+-]{1,40}$/;

/**
 * Replies of hot reads kept with the versions the service read them at (`x-cache-scopes: scope=version,...`), answered
 * only while a read of those versions, sent after the request came, finds them unchanged (docs/CACHE.md).
 */
export class ReplyCache {
  private readonly services = new Map<ServiceName, VersionedCache>();

  constructor(nc: NatsConnection, log: Logger, settings: ReplyCacheSettings) {
    const sizeCalculation = (kept: { value: unknown }) => (kept.value as SplitReply).body.byteLength + 1;
    for (const service of SERVICE_NAMES) {
      const versions = new ScopeVersions(nc, service, log.child({ component: 'reply-cache', service }));
      this.services.set(service, new VersionedCache(versions, { ...settings, sizeCalculation }));
    }
  }

  /** Null when the reply cache is off. */
  static start(nc: NatsConnection, log: Logger, settings: ReplyCacheSettings): ReplyCache | null {
    return settings.max > 0 ? new ReplyCache(nc, log, settings) : null;
  }

  /** The reply kept under `key`, once its versions are found unchanged. */
  async lookup(service: ServiceName, key: string): Promise<SplitReply | null> {
    const kept = (await this.services.get(service)?.find(key)) as SplitReply | undefined;
    outcomes.inc({ service, outcome: kept ? 'hit' : 'miss' });
    return kept ?? null;
  }

  /** Keeps a reply the service shared with the versions it read it at, as splitReply gave it: a hit copies nothing. */
  keep(service: ServiceName, key: string, reply: RawReply, split: SplitReply): void {
    const stamp = reply.headers?.get(HeaderNames.cacheScopes) ?? '';
    const scopes = stamp.split(',').map((one) => STAMP.exec(one)?.[1] ?? '');
    if (!stamp || scopes.includes('')) return;
    // Its own bytes: the message's may share a buffer with others.
    this.services.get(service)?.keep(key, scopes, stamp, { ...split, body: Buffer.from(split.body) });
  }
}
