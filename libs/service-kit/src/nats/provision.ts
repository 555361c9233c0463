/**
 * Provisioning: every stream and durable consumer, made by the `provisioner`
 * NATS user before the services start (npm start, docker compose's
 * `provision`, `npm run provision`). No running process holds these rights.
 */
import { nanos, type NatsConnection } from 'nats';
import {
  DEAD_LETTER_STREAM,
  eventStreamOf,
  provisionedStreams,
  REF_KINDS_BY_SERVICE,
  REF_STREAM,
  REF_SUBJECT_PREFIX,
  refConsumerName,
  SERVICE_NAMES,
  type OutsideSystem,
  type ServiceName,
  type StreamSpec,
} from '@clinic/contracts';
import { integerVar, NATS_ENV, textVar, type EnvProperties } from '../process/env';
import type { Logger } from '../process/logger';
import { ensureEventReaders, ensurePullConsumer, ensureStream, jetStreamManager, streamReplicas } from './jetstream';

export const PROVISION_ENV = {
  ...NATS_ENV,
  OUTSIDE_SYSTEMS_FILE: textVar(
    "Provisioning and NATS users: a JSON list of the other hospital systems on NATS (deploy/outside-systems.json's shape); each gets its user and a durable consumer on each stream it reads. Unset: one, `hospital`.",
  ),
  NATS_STREAM_REPLICAS: integerVar(
    0,
    'Provisioning: replicas of each stream (raised, never lowered); 0: as many as the cluster has nodes, at most 3.',
  ),
  EVENTS_MAX_AGE_DAYS: integerVar(
    400,
    "Provisioning: days each events stream keeps an event (a year and a month's margin).",
  ),
  EVENTS_MAX_BYTES_MB: integerVar(
    1_024,
    'Provisioning: MiB each events stream keeps at most, the oldest dropped first (docs/operations.md: the arithmetic).',
  ),
  REF_MAX_BYTES_MB: integerVar(512, 'Provisioning: MiB the reference stream keeps at most.'),
  DEAD_LETTERS_MAX_AGE_DAYS: integerVar(90, 'Provisioning: days a reference record that could not be applied is kept.'),
  DEAD_LETTERS_MAX_BYTES_MB: integerVar(
    256,
    'Provisioning: MiB of dead letters kept at most, the oldest dropped first (a flood of bad records cannot fill the disk).',
  ),
} as const satisfies EnvProperties;

/** The streams' limits, as provisioning sets them (PROVISION_ENV). */
export interface StreamLimits {
  eventsMaxAgeDays: number;
  eventsMaxBytesMb: number;
  refMaxBytesMb: number;
  deadLettersMaxAgeDays: number;
  deadLettersMaxBytesMb: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  eventsMaxAgeDays: 400,
  eventsMaxBytesMb: 1_024,
  refMaxBytesMb: 512,
  deadLettersMaxAgeDays: 90,
  deadLettersMaxBytesMb: 256,
};

const DAY_MS = 86_400_000;
const MIB = 1024 * 1024;

/** Every stream with its limits: the events' by age and size, the reference stream's by size, dead letters' by age and size. */
export function limitedStreams(limits: StreamLimits): StreamSpec[] {
  return provisionedStreams().map((spec) => {
    if (spec.name === REF_STREAM.name) return { ...spec, maxBytes: limits.refMaxBytesMb * MIB };
    if (spec.name === DEAD_LETTER_STREAM.name)
      return { ...spec, maxAgeMs: limits.deadLettersMaxAgeDays * DAY_MS, maxBytes: limits.deadLettersMaxBytesMb * MIB };
    if (SERVICE_NAMES.some((s) => eventStreamOf(s).name === spec.name))
      return { ...spec, maxAgeMs: limits.eventsMaxAgeDays * DAY_MS, maxBytes: limits.eventsMaxBytesMb * MIB };
    return spec;
  });
}

export interface ProvisionSettings {
  /** Each gets a durable pull consumer of its name on each stream it reads. */
  systems: readonly OutsideSystem[];
  /** 0: from the cluster (streamReplicas). */
  streamReplicas: number;
  limits?: StreamLimits;
}

/** A service's durable consumer on the reference stream. */
export const refConsumerConfig = (service: ServiceName) => ({
  durable_name: refConsumerName(service),
  filter_subject: `${REF_SUBJECT_PREFIX}.>`,
  max_ack_pending: 256,
  ack_wait: nanos(30_000),
});

/** Makes or updates every stream and consumer; safe to run again, and by several processes at once. */
export async function provision(nc: NatsConnection, log: Logger, settings: ProvisionSettings): Promise<void> {
  const jsm = await jetStreamManager(nc, log);
  const replicas = streamReplicas(nc, settings.streamReplicas);
  for (const spec of limitedStreams(settings.limits ?? DEFAULT_STREAM_LIMITS))
    await ensureStream(jsm, spec, log, replicas);
  for (const service of SERVICE_NAMES) {
    if (REF_KINDS_BY_SERVICE[service].length > 0) {
      if (await ensurePullConsumer(jsm, REF_STREAM.name, refConsumerConfig(service), log))
        log.info({ consumer: refConsumerName(service) }, 'reference consumer created');
    }
  }
  for (const system of settings.systems)
    for (const stream of system.reads ?? []) await ensureEventReaders(jsm, stream, [system.name], log);
}
