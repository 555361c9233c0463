import { eventSubjectsOf, SERVICE_NAMES, type ServiceName } from './subjects';

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
  /** The most bytes it keeps, the oldest dropped first (JetStream max_bytes); absent: no limit. */
  maxBytes?: number;
  /** Only the latest message of each subject is kept (JetStream max_msgs_per_subject 1). */
  latestOnly?: boolean;
  /** The largest message it takes (JetStream max_msg_size); absent: the server's limit. */
  maxMsgSize?: number;
  /** Any replica of the stream answers reads of its messages (JetStream allow_direct). */
  direct?: boolean;
}

export const REF_STREAM: StreamSpec = {
  name: 'HOSPITAL_REF',
  subjects: [`${REF_SUBJECT_PREFIX}.>`],
};

/**
 * Reference messages a service could not apply (not JSON, failing their kind's schema, of no known kind): each
 * stored here with the reason, never only skipped, for the publisher to read (through its pull consumer) and fix.
 */
export const DEAD_LETTER_PREFIX = 'hospital.dead';
export const deadLetterSubject = (kind: string): string => `${DEAD_LETTER_PREFIX}.${kind}`;
export const DEAD_LETTER_STREAM: StreamSpec = {
  name: 'HOSPITAL_REF_DEAD',
  subjects: [`${DEAD_LETTER_PREFIX}.>`],
};
/** Headers of a dead letter: why, and where the message came from. */
export const DeadLetterHeaders = {
  reason: 'Clinic-Dead-Reason',
  subject: 'Clinic-Dead-Subject',
  sequence: 'Clinic-Dead-Sequence',
} as const;

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
 * The subjects of a service's read-cache versions (service-kit's cache/): a
 * write stores a mark on `v.<scope>` for each scope it changed, and a scope's
 * version is the sequence and time of its latest mark; in a cluster a reader first
 * stores a mark on `check` to learn how far a current replica has come.
 */
export function cacheSubjectsOf(service: ServiceName) {
  const prefix = `cache.${service}`;
  return { version: (scope: string) => `${prefix}.v.${scope}`, versions: `${prefix}.v.>`, check: `${prefix}.check` };
}

/** A service's cache stream: the latest mark of each scope, read by any replica of the stream (direct get). */
export function cacheStreamOf(service: ServiceName): StreamSpec {
  const subjects = cacheSubjectsOf(service);
  return {
    name: `${service.toUpperCase()}_CACHE`,
    subjects: [subjects.versions, subjects.check],
    latestOnly: true,
    // Far longer than an entry lives (30 s): a mark that ages out only makes its scope's entries misses.
    maxAgeMs: 3_600_000,
    // A mark is one byte (with headers, a few dozen): nobody fills the stream or a reader's answer with big ones.
    maxMsgSize: 256,
    direct: true,
  };
}

/** Every stream, as provisioning makes it: the reference stream, and each service's events and cache streams. */
export function provisionedStreams(): StreamSpec[] {
  return [REF_STREAM, DEAD_LETTER_STREAM, ...SERVICE_NAMES.flatMap((s) => [eventStreamOf(s), cacheStreamOf(s)])];
}

/** Which reference kinds each service keeps a read model of. */
export const REF_KINDS_BY_SERVICE: Record<ServiceName, readonly RefKind[]> = {
  billing: ['store', 'patient', 'user'],
  catalogue: [],
  sessions: ['store', 'doctor', 'appointment', 'doctor_leave', 'holiday'],
};

/** Durable consumer name of a service on the reference stream. */
export const refConsumerName = (service: ServiceName): string => `${service}-ref`;
