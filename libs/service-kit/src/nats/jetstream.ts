import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  nanos,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type JetStreamManager,
  type StreamConfig,
  type NatsConnection,
} from 'nats';
import type { StreamSpec } from '@clinic/contracts';
import type { Logger } from '../process/logger';
import { pauses, retryPolicy } from '../process/retry';

/** How long JetStream remembers message ids, so a republished outbox entry is dropped as a duplicate. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

/** The most replicas a stream gets: three tolerate the loss of one node. */
export const MAX_STREAM_REPLICAS = 3;

function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && /not found/i.test(String((err as Error).message));
}

/**
 * How many replicas the streams should have: `configured` (NATS_STREAM_REPLICAS)
 * when above 0, otherwise as many nodes as the server reports in its cluster
 * (its `connect_urls`), at most three; one for a single server.
 */
export function streamReplicas(nc: NatsConnection, configured = 0): number {
  if (configured > 0) return configured;
  const nodes = nc.info?.cluster ? new Set(nc.info.connect_urls ?? []).size : 1;
  return Math.max(1, Math.min(MAX_STREAM_REPLICAS, nodes));
}

/**
 * Creates the stream, or brings its configuration to the spec's: a stream of
 * data only gains subjects and replicas (a stream made on a single server, or
 * before the cluster grew, goes to `replicas`; it is never lowered). Safe when
 * run twice at once (a create that lost the race is followed by another look),
 * and waits out a cluster still electing its leaders, up to 30 s.
 */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec, log: Logger, replicas = 1): Promise<void> {
  await whileStarting(log, { stream: spec.name }, 'stream not ready; trying again', () =>
    ensureStreamOnce(jsm, spec, log, replicas),
  );
}

/**
 * The JetStream manager, once JetStream answers: its first request (account
 * info) times out while a server that has just restarted recovers its streams,
 * and a process starting then tries again for up to 30 s instead of exiting.
 */
export async function jetStreamManager(nc: NatsConnection, log: Logger): Promise<JetStreamManager> {
  return whileStarting(log, {}, 'JetStream not ready; trying again', () => nc.jetstreamManager());
}

/** Tries `fn` again every 500 ms for 30 s: what start-up waits out (a server restarting, leaders being elected). */
export function whileStarting<T>(log: Logger, fields: object, message: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  return retryPolicy({
    retryOn: () => Date.now() <= deadline,
    retries: Infinity,
    pause: pauses.constant(500),
    onRetry: (err) => log.warn({ err, ...fields }, message),
  }).execute(fn);
}

/** What a stream's configuration must hold: a cache stream's exactly; a stream of data keeps every subject it had. */
function wantedConfig(spec: StreamSpec, replicas: number, had?: StreamConfig): Partial<StreamConfig> {
  const subjects = had && !spec.latestOnly ? [...new Set([...had.subjects, ...spec.subjects])] : spec.subjects;
  return {
    subjects,
    num_replicas: Math.max(had?.num_replicas || 1, replicas),
    max_age: nanos(spec.maxAgeMs ?? 0),
    max_bytes: spec.maxBytes ?? -1,
    max_msgs_per_subject: spec.latestOnly ? 1 : -1,
    max_msg_size: spec.maxMsgSize ?? -1,
    allow_direct: spec.direct ?? false,
    republish: undefined,
  };
}

function differs(had: StreamConfig, wanted: Partial<StreamConfig>): string[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  return (Object.keys(wanted) as Array<keyof StreamConfig>).filter((key) => !same(had[key], wanted[key]));
}

async function ensureStreamOnce(jsm: JetStreamManager, spec: StreamSpec, log: Logger, replicas: number): Promise<void> {
  try {
    const info = await jsm.streams.info(spec.name);
    const wanted = wantedConfig(spec, replicas, info.config);
    const changed = differs(info.config, wanted);
    if (changed.length > 0) {
      await jsm.streams.update(spec.name, { ...info.config, ...wanted });
      log.info({ stream: spec.name, changed }, 'stream configuration updated');
    }
    return;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await jsm.streams.add({
    name: spec.name,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(Math.min(DUPLICATE_WINDOW_MS, spec.maxAgeMs ?? Infinity)),
    ...wantedConfig(spec, replicas),
  });
  log.info({ stream: spec.name, subjects: spec.subjects, replicas }, 'stream created');
}

/**
 * A durable pull consumer of `stream`, created when missing (JetStream creates
 * one idempotently when the configuration is the same, so replicas may start at
 * once). A stream just made with three replicas can leave its first requests
 * unanswered while it elects a leader: this waits that out, as ensureStream does.
 * Answers whether it created the consumer.
 */
export async function ensurePullConsumer(
  jsm: JetStreamManager,
  stream: string,
  config: Partial<ConsumerConfig> & { durable_name: string },
  log: Logger,
): Promise<boolean> {
  const consumer = config.durable_name;
  return whileStarting(log, { stream, consumer }, 'consumer not ready; trying again', async () => {
    try {
      const info = await jsm.consumers.info(stream, consumer);
      if (info.config.deliver_subject) {
        // Made by hand or by a version that let other systems create consumers: not ours to delete.
        log.error(
          { stream, consumer, deliver_subject: info.config.deliver_subject },
          'consumer is a push consumer: delete it so that it is provisioned again as a pull consumer',
        );
      }
      return false;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    await jsm.consumers.add(stream, { ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, ...config });
    return true;
  });
}

/** The durable pull consumers other hospital systems read the service's events through, one per reader name. */
export async function ensureEventReaders(
  jsm: JetStreamManager,
  stream: string,
  readers: readonly string[],
  log: Logger,
): Promise<void> {
  for (const reader of readers) {
    const config = { durable_name: reader, ack_wait: nanos(30_000), max_ack_pending: 1_000 };
    if (await ensurePullConsumer(jsm, stream, config, log)) {
      log.info({ stream, consumer: reader }, 'event reader consumer created');
    }
  }
}
