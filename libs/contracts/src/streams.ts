import { eventSubjectsOf, type ServiceName } from './subjects';

/** Reference data owned by other hospital systems, published as whole records. */
export const REF_KINDS = ['store', 'user', 'patient', 'doctor', 'appointment', 'doctor_leave', 'holiday'] as const;
export type RefKind = (typeof REF_KINDS)[number];

export const REF_SUBJECT_PREFIX = 'hospital.ref';
export const refSubject = (kind: RefKind): string => `${REF_SUBJECT_PREFIX}.${kind}`;

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** How long a message is kept (JetStream max_age); absent: until the stream's other limits. */
  maxAgeMs?: number;
}

export const REF_STREAM: StreamSpec = {
  name: 'HOSPITAL_REF',
  subjects: [`${REF_SUBJECT_PREFIX}.>`],
};

/**
 * Each service's events stream lists its event subjects one by one: a wildcard
 * such as `billing.bill.*` would also capture the request subjects and make
 * JetStream answer requests with publish acknowledgements.
 */
export function eventStreamOf(service: ServiceName): StreamSpec {
  return {
    name: `${service.toUpperCase()}_EVENTS`,
    subjects: eventSubjectsOf(service),
  };
}

/**
 * The subjects by which the replicas of a service keep their read caches
 * exact (service-kit's cache-coherence.ts): each replica's lease renewals on
 * `lease.<replica>`, the invalidations writers publish on `inval` (both kept
 * in the service's cache stream, in one order), and the confirmations a
 * replica sends a writer on `applied.<writer>` (core NATS, not stored).
 */
export function cacheSubjectsOf(service: ServiceName) {
  const prefix = `cache.${service}`;
  return {
    lease: (replica: string) => `${prefix}.lease.${replica}`,
    leases: `${prefix}.lease.*`,
    invalidations: `${prefix}.inval`,
    applied: (writer: string) => `${prefix}.applied.${writer}`,
    allApplied: `${prefix}.applied.*`,
  };
}

/**
 * A service's cache stream: leases and invalidations in one order. A minute of
 * them is kept, far beyond a lease, so that a replica that follows the stream
 * never finds one gone before it read it (cache-coherence.ts).
 */
export function cacheStreamOf(service: ServiceName): StreamSpec {
  const subjects = cacheSubjectsOf(service);
  return {
    name: `${service.toUpperCase()}_CACHE`,
    subjects: [subjects.leases, subjects.invalidations],
    maxAgeMs: 60_000,
  };
}

/** Which reference kinds each service keeps a read model of. */
export const REF_KINDS_BY_SERVICE: Record<ServiceName, readonly RefKind[]> = {
  billing: ['store', 'patient', 'user'],
  catalogue: [],
  sessions: ['store', 'doctor', 'appointment', 'doctor_leave', 'holiday'],
};

/** Durable consumer name of a service on the reference stream. */
export const refConsumerName = (service: ServiceName): string => `${service}-ref`;

/**
 * Other hospital systems read a service's events only through durable pull
 * consumers that the service provisions on its own stream, one per reader name
 * (EVENT_READERS; this by default). They may fetch from them and acknowledge,
 * never create a consumer (see nats-permissions.ts).
 */
export const DEFAULT_EVENT_READERS: readonly string[] = ['hospital'];
