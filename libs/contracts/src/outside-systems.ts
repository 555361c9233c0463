/**
 * Other hospital systems on NATS, as an installation declares them (a JSON
 * file, OUTSIDE_SYSTEMS_FILE): each gets a NATS user of its own, a password
 * made for it, and a durable pull consumer of its own on each stream it reads.
 * Adding one is configuration, not code: the users of nats.conf, the
 * passwords and the consumers all come from the list.
 */
import { JS } from './jetstream-api';
import type { NatsGrant } from './nats-grant';
import type { JsonSchema } from './schemas/common';
import { DEAD_LETTER_STREAM, eventStreamOf, REF_STREAM, REF_SUBJECT_PREFIX } from './streams';
import { SERVICE_NAMES, ServiceSubjects } from './subjects';

export interface OutsideSystem {
  /** Its NATS user, and the name of its durable consumers. */
  name: string;
  description?: string;
  /** May publish reference records (`hospital.ref.<kind>`). */
  publishes_reference?: boolean;
  /** May call the services' operations, each request with a user's token. */
  calls?: boolean;
  /** The streams it reads, through its own durable pull consumer on each. */
  reads?: string[];
}

/** Streams an outside system may read. */
export const READABLE_STREAMS: readonly string[] = [
  ...SERVICE_NAMES.map((s) => eventStreamOf(s).name),
  DEAD_LETTER_STREAM.name,
];

/** What an installation that declares none has: one system that sends reference data, calls and reads everything. */
export const DEFAULT_OUTSIDE_SYSTEMS: readonly OutsideSystem[] = [
  {
    name: 'hospital',
    description: 'Other hospital systems.',
    publishes_reference: true,
    calls: true,
    reads: [...READABLE_STREAMS],
  },
];

export const OUTSIDE_SYSTEMS_SCHEMA: JsonSchema = {
  type: 'array',
  maxItems: 50,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { type: 'string', pattern: '^[a-z][a-z0-9_]{1,30}$' },
      description: { type: 'string', maxLength: 200 },
      publishes_reference: { type: 'boolean' },
      calls: { type: 'boolean' },
      reads: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...READABLE_STREAMS] } },
    },
  },
};

/** The grants of a system's user: only its own consumers, by name. */
export function outsideSystemGrants(system: OutsideSystem, routedSubjects: string[]): NatsGrant[] {
  const { name } = system;
  const reads = system.reads ?? [];
  return [
    ...(system.publishes_reference
      ? [{ purpose: `Publish reference records to ${REF_STREAM.name}`, publish: [`${REF_SUBJECT_PREFIX}.>`] }]
      : []),
    ...(system.calls
      ? [{ purpose: "Call the services' operations, each request with a user's token", publish: routedSubjects }]
      : []),
    {
      purpose: `Ask each service how far it applied ${REF_STREAM.name} (its records that could not be are in ${DEAD_LETTER_STREAM.name})`,
      publish: SERVICE_NAMES.map((s) => ServiceSubjects[s].refStatus),
    },
    ...(reads.length > 0
      ? [
          {
            purpose: `Read ${reads.join(', ')} through its own durable pull consumer \`${name}\` on each: fetch, acknowledge, look up; never create one`,
            publish: reads.flatMap((stream) => [
              JS.streamInfo(stream),
              JS.consumerInfo(stream, name),
              JS.next(stream, name),
              JS.ack(stream, name),
            ]),
          },
        ]
      : []),
  ];
}
