import { JS } from './jetstream-api';
import type { NatsGrant } from './nats-grant';
import { cacheStreamOf, cacheSubjectsOf } from './streams';
import { SERVICE_NAMES, type ServiceName } from './subjects';

/**
 * What keeps a service's read caches exact (service-kit's cache/): its
 * replicas store invalidations on their own cache stream, follow what the
 * stream republishes, and ask the stream's leader for its latest sequence
 * (in a cluster, by storing an empty invalidation).
 * No consumer, and no right to change the stream.
 */
export function cacheGrant(service: ServiceName): NatsGrant {
  const subjects = cacheSubjectsOf(service);
  return {
    purpose: `Keep its replicas' read caches exact: store invalidations on ${cacheStreamOf(service).name}, follow what it republishes, read its latest`,
    publish: [subjects.invalidations, JS.msgGet(cacheStreamOf(service).name)],
    subscribe: [subjects.stored],
  };
}

/**
 * The gateway's reply cache follows every service's invalidations (gateway reply-cache.ts). In a cluster it stores
 * empty ones to learn the latest sequence from a leader with its quorum; what it could store otherwise only empties
 * caches.
 */
export function replyCacheGrant(): NatsGrant {
  return {
    purpose: `Keep its reply cache exact: follow the services' invalidations (${SERVICE_NAMES.map((s) => cacheStreamOf(s).name).join(', ')}) and read each stream's latest (in a cluster, by storing an empty invalidation)`,
    publish: SERVICE_NAMES.flatMap((s) => [JS.msgGet(cacheStreamOf(s).name), cacheSubjectsOf(s).invalidations]),
    subscribe: SERVICE_NAMES.map((s) => cacheSubjectsOf(s).stored),
  };
}
