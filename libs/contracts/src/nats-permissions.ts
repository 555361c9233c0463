/**
 * Who may do what on NATS. Each process connects as one of these users; the
 * server enforces the lists (deploy/nats/nats.conf is generated from them).
 */
import { accessOf } from './access';
import { Limits } from './limits';
import { HTTP_ROUTES } from './routes';
import { eventStreamOf, REF_STREAM, REF_SUBJECT_PREFIX } from './streams';
import { CatalogueSubjects, requestSubjectsOf, SERVICE_NAMES, ServiceSubjects, type ServiceName } from './subjects';

export const NATS_USERS = ['gateway', 'billing', 'catalogue', 'sessions', 'hospital', 'ops'] as const;
export type NatsUser = (typeof NATS_USERS)[number];

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
  /**
   * How many messages it may publish to the reply subject of each request it
   * receives (0: it answers none); replies larger than one message take several.
   */
  allowResponses: number;
}

const INBOX = '_INBOX.>';

/** Subjects another service calls on behalf of its caller. */
const SERVICE_CALLS: Record<ServiceName, string[]> = {
  billing: [CatalogueSubjects.check],
  catalogue: [],
  sessions: [],
};

function servicePermissions(service: ServiceName): NatsPermissions {
  const stream = eventStreamOf(service);
  return {
    publish: [
      ...SERVICE_CALLS[service],
      ...stream.subjects,
      // JetStream: streams, the reference consumer, publish acknowledgements.
      '$JS.API.>',
      `$JS.ACK.${REF_STREAM.name}.>`,
    ],
    subscribe: [...requestSubjectsOf(service), INBOX],
    allowResponses: Limits.replyChunksMax,
  };
}

/** Reading an events stream with one's own consumers; never creating, changing or deleting streams. */
function eventReading(): string[] {
  return [
    '$JS.API.INFO',
    ...SERVICE_NAMES.flatMap((s) => {
      const { name } = eventStreamOf(s);
      return [
        `$JS.API.STREAM.INFO.${name}`,
        // CREATE, INFO, DELETE ... <stream>[.<consumer>[.<filter>]]
        `$JS.API.CONSUMER.*.${name}`,
        `$JS.API.CONSUMER.*.${name}.>`,
        `$JS.API.CONSUMER.DURABLE.CREATE.${name}.*`,
        `$JS.API.CONSUMER.MSG.NEXT.${name}.*`,
        `$JS.ACK.${name}.>`,
      ];
    }),
  ];
}

export const NATS_PERMISSIONS: Record<NatsUser, NatsPermissions> = {
  // The gateway forwards HTTP routes and asks each service for its health; nothing else.
  gateway: {
    publish: [...new Set([...HTTP_ROUTES.map((r) => r.subject), ...SERVICE_NAMES.map((s) => ServiceSubjects[s].health)])],
    subscribe: [INBOX],
    allowResponses: 0,
  },
  billing: servicePermissions('billing'),
  catalogue: servicePermissions('catalogue'),
  sessions: servicePermissions('sessions'),
  // Other hospital systems: publish reference records, read the events.
  hospital: {
    publish: [`${REF_SUBJECT_PREFIX}.>`, ...eventReading()],
    subscribe: [...SERVICE_NAMES.flatMap((s) => eventStreamOf(s).subjects), INBOX],
    allowResponses: 0,
  },
  // Operators' tools (seed, demo data): reference records, health and applied-sequence queries.
  ops: {
    publish: [
      `${REF_SUBJECT_PREFIX}.>`,
      '$JS.API.INFO',
      `$JS.API.STREAM.INFO.${REF_STREAM.name}`,
      ...SERVICE_NAMES.flatMap((s) => [ServiceSubjects[s].health, ServiceSubjects[s].refStatus]),
    ],
    subscribe: [INBOX],
    allowResponses: 0,
  },
};

/** Every request subject reachable by the gateway must be one a service answers with an access rule. */
export function gatewaySubjectsAreKnown(): boolean {
  return NATS_PERMISSIONS.gateway.publish.every((subject) => Boolean(accessOf(subject)));
}
