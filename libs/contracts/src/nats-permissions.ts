/**
 * Who may do what on NATS. Each process connects as one of these users; the
 * server enforces the lists (deploy/nats/nats.conf is generated from them, and
 * so is the table in docs/RELIABILITY.md).
 *
 * The rules behind them:
 * - replies: each user has its own inbox prefix (`_INBOX_<user>`, nats.js
 *   `inboxPrefix`) and may subscribe only there; responders answer through
 *   `allow_responses`, so no user can read another's replies;
 * - JetStream: nobody holds `$JS.API.>`. Streams and durable consumers are
 *   made by `provisioner` alone, before the services start; no running process
 *   may create, change, delete or purge a stream, nor create a consumer:
 *   nats-server does not check a push consumer's deliver subject against its
 *   creator's permissions, so a consumer could be pointed at a service's
 *   subjects. Services and other hospital systems read through durable pull
 *   consumers provisioned for them;
 * - discovery: each service answers the NATS Services API's `$SRV.PING`,
 *   `$SRV.INFO` and `$SRV.STATS` (for all services, for its name, and for its
 *   instance's id); only `ops` may ask, since the answers name hosts, pids and
 *   every subject, as `GET /health/details` does for admins.
 */
import { accessOf } from './access';
import type { NatsGrant } from './nats-grant';
import { Limits } from './limits';
import { HTTP_ROUTES } from './routes';
import { JS } from './jetstream-api';
import { cacheGrant, replyCacheGrant } from './nats-cache-grants';
import { inboxPrefixOf, PROCESS_USERS, type NatsUser, type ProcessUser } from './nats-users';
import { DEFAULT_OUTSIDE_SYSTEMS, outsideSystemGrants, type OutsideSystem } from './outside-systems';
import {
  DEAD_LETTER_PREFIX,
  DEAD_LETTER_STREAM,
  eventStreamOf,
  provisionedStreams,
  REF_KINDS_BY_SERVICE,
  REF_STREAM,
  REF_SUBJECT_PREFIX,
  refConsumerName,
} from './streams';
import {
  BillingSubjects,
  CatalogueSubjects,
  requestSubjectsOf,
  SERVICE_NAMES,
  ServiceSubjects,
  SessionsSubjects,
  type ServiceName,
} from './subjects';

export type { NatsGrant } from './nats-grant';

export interface NatsUserSpec {
  job: string;
  grants: NatsGrant[];
  /**
   * How many messages it may publish to the reply subject of each request it
   * receives (0: it answers none); replies larger than one message take several.
   */
  allowResponses: number;
}

export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
  allowResponses: number;
}

/** The NATS Services API's verbs (`$SRV.<verb>[.<name>[.<instance id>]]`). */
const DISCOVERY_VERBS = ['PING', 'INFO', 'STATS'] as const;

/** What a service subscribes to so as to answer discovery: every service's, its name's, its instance's (an id made at start). */
export const discoverySubjectsOf = (service: ServiceName): string[] =>
  DISCOVERY_VERBS.flatMap((verb) => [`$SRV.${verb}`, `$SRV.${verb}.${service}`, `$SRV.${verb}.${service}.*`]);

const routedSubjects = (): string[] => [...new Set(HTTP_ROUTES.map((r) => r.subject))];

const ownReplies = (user: string): NatsGrant => ({
  purpose: "Receive the replies to its own requests (JetStream's answers and pulled messages too)",
  subscribe: [`${inboxPrefixOf(user)}.>`],
});

const jetStreamCheck: NatsGrant = {
  purpose: 'Check that JetStream is on (nats.js `jetstreamManager()`; account totals only)',
  publish: [JS.accountInfo],
};

/** Subjects a service calls on behalf of its caller, forwarding the caller's token. */
const SERVICE_CALLS: Record<ServiceName, string[]> = {
  billing: [CatalogueSubjects.check, SessionsSubjects.channeling, SessionsSubjects.cancelAppointment],
  catalogue: [BillingSubjects.useApproval, BillingSubjects.releaseApproval],
  sessions: [BillingSubjects.appointmentBalances],
};

function referenceGrant(service: ServiceName): NatsGrant {
  const stream = REF_STREAM.name;
  if (REF_KINDS_BY_SERVICE[service].length === 0) {
    return {
      purpose: `Report ${stream}'s last sequence (it keeps no reference data)`,
      publish: [JS.streamInfo(stream)],
    };
  }
  const consumer = refConsumerName(service);
  return {
    purpose: `Follow ${stream} with its provisioned durable pull consumer \`${consumer}\`; store what it cannot apply in ${DEAD_LETTER_STREAM.name}`,
    publish: [
      JS.streamInfo(stream),
      JS.consumerInfo(stream, consumer),
      JS.next(stream, consumer),
      JS.ack(stream, consumer),
      `${DEAD_LETTER_PREFIX}.>`,
    ],
  };
}

/**
 * A subscription nats-server allows only in one queue group (`"<subject> <queue>"`): a service holds its
 * request subjects in its own queue group, so that its password cannot read every request (and the token
 * it carries) beside the replicas that answer them.
 */
export const inQueueGroup = (subject: string, queue: string): string => `${subject} ${queue}`;

function serviceUser(service: ServiceName): NatsUserSpec {
  const events = eventStreamOf(service);
  const calls = SERVICE_CALLS[service];
  return {
    job: `The ${service} service (every replica).`,
    grants: [
      {
        purpose: `Answer its requests, in queue group \`${service}\` only; replies go through allow_responses`,
        subscribe: requestSubjectsOf(service).map((subject) => inQueueGroup(subject, service)),
      },
      {
        purpose:
          'Answer discovery (NATS Services API: `$SRV.PING`, `INFO`, `STATS`); replies go through allow_responses',
        subscribe: discoverySubjectsOf(service),
      },
      ...(calls.length > 0
        ? [{ purpose: "Ask another service on behalf of its caller, with the caller's token", publish: calls }]
        : []),
      { purpose: `Publish its events (the outbox relay) to ${events.name}`, publish: events.subjects },
      referenceGrant(service),
      cacheGrant(service),
      jetStreamCheck,
      ownReplies(service),
    ],
    allowResponses: Limits.replyChunksMax,
  };
}

const PROCESS_USER_SPECS: Record<ProcessUser, NatsUserSpec> = {
  gateway: {
    job: 'The HTTP gateway.',
    grants: [
      {
        purpose: "Forward each HTTP route to the service that answers it, with the caller's token",
        publish: routedSubjects(),
      },
      {
        purpose: 'Ask each service for its health (`GET /health`)',
        publish: SERVICE_NAMES.map((s) => ServiceSubjects[s].health),
      },
      replyCacheGrant(),
      ownReplies('gateway'),
    ],
    allowResponses: 0,
  },
  billing: serviceUser('billing'),
  catalogue: serviceUser('catalogue'),
  sessions: serviceUser('sessions'),
  ops: {
    job: "Operators' tools: `npm run seed`, the demo data of `npm start`, `nats micro` (discovery).",
    grants: [
      { purpose: `Publish reference records to ${REF_STREAM.name}`, publish: [`${REF_SUBJECT_PREFIX}.>`] },
      {
        purpose: `Look at ${REF_STREAM.name} (is the demo data loaded?)`,
        publish: [JS.accountInfo, JS.streamInfo(REF_STREAM.name)],
      },
      {
        purpose:
          'Back up every stream (`npm run backup`: the server sends its snapshot to the inbox, acknowledged chunk by chunk)',
        publish: [REF_STREAM.name, ...SERVICE_NAMES.map((s) => eventStreamOf(s).name)].flatMap((stream) => [
          `$JS.API.STREAM.SNAPSHOT.${stream}`,
          `$JS.SNAPSHOT.ACK.${stream}.>`,
        ]),
      },
      {
        purpose: `Ask each service for its health and how far it applied ${REF_STREAM.name}`,
        publish: SERVICE_NAMES.flatMap((s) => [ServiceSubjects[s].health, ServiceSubjects[s].refStatus]),
      },
      {
        purpose:
          "Discover the services' instances, their endpoints and per-endpoint figures (NATS Services API, `nats micro`)",
        publish: [...new Set(SERVICE_NAMES.flatMap(discoverySubjectsOf))],
      },
      ownReplies('ops'),
    ],
    allowResponses: 0,
  },
  provisioner: {
    job: "Provisioning, before the services start (`npm start`, docker compose's `provision`, `npm run provision`).",
    grants: [
      {
        purpose: 'Create every stream, and update its configuration (never delete or purge one)',
        publish: [
          JS.accountInfo,
          ...provisionedStreams().flatMap((s) => [
            JS.streamInfo(s.name),
            JS.streamCreate(s.name),
            JS.streamUpdate(s.name),
          ]),
        ],
      },
      {
        purpose: "Move a stream's leader to another node (before a node's maintenance)",
        publish: provisionedStreams().map((s) => JS.streamLeaderStepdown(s.name)),
      },
      {
        // A consumer's deliver subject is in the request's payload, which no permission reaches: only this user
        // creates consumers, and only durable pull ones (service-kit provision.ts).
        purpose: "Create the durable pull consumers: each service's on the reference stream, the event readers'",
        publish: [
          ...SERVICE_NAMES.filter((s) => REF_KINDS_BY_SERVICE[s].length > 0).flatMap((s) => [
            JS.consumerInfo(REF_STREAM.name, refConsumerName(s)),
            JS.consumerCreate(REF_STREAM.name, refConsumerName(s)),
            `${JS.consumerCreate(REF_STREAM.name, refConsumerName(s))}.>`,
          ]),
          ...[...SERVICE_NAMES.map((s) => eventStreamOf(s).name), DEAD_LETTER_STREAM.name].flatMap((name) => [
            JS.consumerInfo(name, '*'),
            JS.consumerCreate(name, '*'),
          ]),
        ],
      },
      ownReplies('provisioner'),
    ],
    allowResponses: 0,
  },
};

/** An outside system's user: its grants, and its own replies. */
function outsideUser(system: OutsideSystem): NatsUserSpec {
  return {
    job: system.description ?? `Outside system ${system.name}.`,
    grants: [...outsideSystemGrants(system, routedSubjects()), ownReplies(system.name)],
    allowResponses: 0,
  };
}

/** Every user of an installation: the processes', then each outside system's. */
export function natsUserSpecs(
  systems: readonly OutsideSystem[] = DEFAULT_OUTSIDE_SYSTEMS,
): Record<string, NatsUserSpec> {
  const clash = systems.find((s) => (PROCESS_USERS as readonly string[]).includes(s.name));
  if (clash) throw new Error(`Outside system ${clash.name} takes the name of a process's NATS user`);
  return { ...PROCESS_USER_SPECS, ...Object.fromEntries(systems.map((s) => [s.name, outsideUser(s)])) };
}

export const NATS_USER_SPECS = natsUserSpecs() as Record<NatsUser, NatsUserSpec>;

function flatten(spec: NatsUserSpec): NatsPermissions {
  return {
    publish: [...new Set(spec.grants.flatMap((g) => g.publish ?? []))],
    subscribe: [...new Set(spec.grants.flatMap((g) => g.subscribe ?? []))],
    allowResponses: spec.allowResponses,
  };
}

/** Every user's permissions, flattened (what nats.conf lists). */
export function natsPermissionsOf(
  systems: readonly OutsideSystem[] = DEFAULT_OUTSIDE_SYSTEMS,
): Record<string, NatsPermissions> {
  return Object.fromEntries(Object.entries(natsUserSpecs(systems)).map(([user, spec]) => [user, flatten(spec)]));
}

export const NATS_PERMISSIONS = natsPermissionsOf() as Record<NatsUser, NatsPermissions>;

/** What the gateway publishes to follow the services' cache streams (its reply cache), not to call a service. */
export function gatewayCacheSubjects(): Set<string> {
  return new Set(replyCacheGrant().publish ?? []);
}

/** Every request subject reachable by the gateway must be one a service answers with an access rule. */
export function gatewaySubjectsAreKnown(): boolean {
  const following = gatewayCacheSubjects();
  return NATS_PERMISSIONS.gateway.publish.every((subject) => following.has(subject) || Boolean(accessOf(subject)));
}
