import { JS } from './jetstream-api';
import type { NatsGrant } from './nats-grant';
import { cacheStreamOf, cacheSubjectsOf } from './streams';
import { SERVICE_NAMES, type ServiceName } from './subjects';

/** Reading a service's cache versions: a direct get of the latest marks, after storing a check mark in a cluster. */
const readVersions = (service: ServiceName) => [
  JS.directGet(cacheStreamOf(service).name),
  cacheSubjectsOf(service).check,
];

/**
 * What keeps a service's read caches exact (service-kit's cache/): its replicas store a mark for each scope a write
 * changed on their own cache stream and read the scopes' latest marks. No consumer, and no right to change the stream.
 */
export function cacheGrant(service: ServiceName): NatsGrant {
  return {
    purpose: `Keep its replicas' read caches exact: store version marks on ${cacheStreamOf(service).name} and read them`,
    publish: [cacheSubjectsOf(service).versions, ...readVersions(service)],
  };
}

/** The gateway's reply cache reads every service's versions (gateway reply-cache.ts); it can change none. */
export function replyCacheGrant(): NatsGrant {
  return {
    purpose: `Keep its reply cache exact: read the services' cache versions (${SERVICE_NAMES.map((s) => cacheStreamOf(s).name).join(', ')})`,
    publish: SERVICE_NAMES.flatMap(readVersions),
  };
}
