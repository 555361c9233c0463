import { JS } from './jetstream-api';
import type { NatsGrant } from './nats-permissions';
import { cacheStreamOf, cacheSubjectsOf } from './streams';
import { SERVICE_NAMES, type ServiceName } from './subjects';

/**
 * What keeps a service's replicas' read caches exact (service-kit's
 * cache-coherence.ts). Each replica follows the cache stream with an ordered
 * consumer nats.js names at random, so the consumer rights are on the stream
 * by any name; the stream holds only leases and invalidations, and a delivery
 * pushed to a service's subject is ignored there (isStreamDelivery).
 */
export function cacheGrant(service: ServiceName): NatsGrant {
  const { name } = cacheStreamOf(service);
  const subjects = cacheSubjectsOf(service);
  return {
    purpose: `Keep its replicas' read caches exact: create ${name}, renew its leases and publish invalidations to it, follow it with ordered consumers of its own, confirm invalidations to their writers`,
    publish: [...cacheFollowing(service), subjects.invalidations],
    subscribe: [subjects.allApplied],
  };
}

/**
 * The gateway's reply cache is one more replica of each service's cache (gateway reply-cache.ts): it follows
 * the stream, renews its lease and confirms invalidations, and never publishes one.
 */
export function replyCacheGrant(): NatsGrant {
  return {
    purpose: `Keep its reply cache exact: create the services' cache streams (${SERVICE_NAMES.map((s) => cacheStreamOf(s).name).join(', ')}) when missing, follow them with ordered consumers of its own, renew its leases, confirm invalidations to their writers`,
    publish: SERVICE_NAMES.flatMap(cacheFollowing),
  };
}

/** What a replica of a service's cache publishes, but invalidations. */
function cacheFollowing(service: ServiceName): string[] {
  const { name } = cacheStreamOf(service);
  const subjects = cacheSubjectsOf(service);
  return [
    JS.streamInfo(name),
    JS.streamCreate(name),
    JS.streamUpdate(name),
    JS.consumerInfo(name, '*'),
    // With several filter subjects, nats.js creates it on the stream's subject without the consumer's name.
    `$JS.API.CONSUMER.CREATE.${name}`,
    JS.consumerCreate(name, '*'),
    // nats.js deletes the ordered consumer it replaces; without the right, its follow stops after a partition.
    `$JS.API.CONSUMER.DELETE.${name}.*`,
    JS.next(name, '*'),
    subjects.leases,
    subjects.allApplied,
  ];
}
