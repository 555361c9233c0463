import { eventSubjectsOf, type ServiceName } from './subjects';

/** Reference data owned by other hospital systems, published as whole records. */
export const REF_KINDS = ['store', 'user', 'patient', 'doctor', 'appointment', 'doctor_leave', 'holiday'] as const;
export type RefKind = (typeof REF_KINDS)[number];

export const REF_SUBJECT_PREFIX = 'hospital.ref';
export const refSubject = (kind: RefKind): string => `${REF_SUBJECT_PREFIX}.${kind}`;

export interface StreamSpec {
  name: string;
  subjects: string[];
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
