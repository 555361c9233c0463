import type { NatsConnection } from 'nats';
import { cacheStreamOf, type ServiceName } from '@clinic/contracts';
import { whileStarting } from '../nats/jetstream';
import type { Logger } from '../process/logger';
import { InvalidationLog } from './invalidation-log';
import { VersionedCache, type VersionedCacheOptions } from './versioned-cache';

export interface ReplicaCache {
  cache: VersionedCache;
  stop(): Promise<void>;
}

/**
 * A replica's cache on its service's stream: follows what the stream
 * republishes, and starts at its latest invalidation (waiting, as start-up
 * does, for a stream provisioning has not made yet).
 */
export async function startReplicaCache(
  nc: NatsConnection,
  service: ServiceName,
  log: Logger,
  options?: VersionedCacheOptions,
): Promise<ReplicaCache> {
  const invalidations = new InvalidationLog(nc, service, log);
  const cache = new VersionedCache(invalidations, log, options);
  const following = invalidations.follow((stored) => cache.deliver(stored));
  const stream = cacheStreamOf(service).name;
  cache.start(
    await whileStarting(log, { stream }, 'cache stream not ready; trying again', () => invalidations.latest()),
  );
  return {
    cache,
    stop: () => {
      following.unsubscribe();
      return invalidations.stop();
    },
  };
}
