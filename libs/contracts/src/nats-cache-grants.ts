import { JS } from './jetstream-api';
import type { NatsGrant } from './nats-grant';
import { cacheStreamOf, cacheSubjectsOf } from './streams';
import { SERVICE_NAMES, type ServiceName } from './subjects';

/**
 * What keeps a service's read caches exact (service-kit's cache/): its
 * replicas store invalidations on their own cache stream, follow what the
 * stream republishes, and ask the stream's leader for its latest sequence.
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

/** The gateway's reply cache follows every service's invalidations and publishes none (gateway reply-cache.ts). */
export function replyCacheGrant(): NatsGrant {
  return {
    purpose: `Keep its reply cache exact: follow the services' invalidations (${SERVICE_NAMES.map((s) => cacheStreamOf(s).name).join(', ')}) and read each stream's latest`,
    publish: SERVICE_NAMES.map((s) => JS.msgGet(cacheStreamOf(s).name)),
    subscribe: SERVICE_NAMES.map((s) => cacheSubjectsOf(s).stored),
  };
}
