import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  nanos,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type JetStreamManager,
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
 * Creates the stream, or widens its subjects and raises its replicas (a stream
 * made on a single server, or before the cluster grew, goes to `replicas`; a
 * stream is never lowered). Safe when several processes start at once (a
 * create that lost the race is followed by another look), and waits out a
 * cluster still electing its leaders or learning its peers, up to 30 s.
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

async function ensureStreamOnce(jsm: JetStreamManager, spec: StreamSpec, log: Logger, replicas: number): Promise<void> {
  try {
    const info = await jsm.streams.info(spec.name);
    const missing = spec.subjects.filter((s) => !info.config.subjects.includes(s));
    const current = info.config.num_replicas || 1;
    if (missing.length > 0 || current < replicas) {
      await jsm.streams.update(spec.name, {
        ...info.config,
        subjects: [...info.config.subjects, ...missing],
        num_replicas: Math.max(current, replicas),
      });
      if (missing.length > 0) log.info({ stream: spec.name, added: missing }, 'stream subjects added');
      if (current < replicas) log.info({ stream: spec.name, from: current, to: replicas }, 'stream replicas raised');
    }
    return;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await jsm.streams.add({
    name: spec.name,
    subjects: spec.subjects,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    duplicate_window: nanos(Math.min(DUPLICATE_WINDOW_MS, spec.maxAgeMs ?? Infinity)),
    ...(spec.maxAgeMs ? { max_age: nanos(spec.maxAgeMs) } : {}),
    num_replicas: replicas,
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
