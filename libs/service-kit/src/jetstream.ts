import { AckPolicy, DeliverPolicy, DiscardPolicy, nanos, RetentionPolicy, StorageType, type JetStreamManager } from 'nats';
import type { StreamSpec } from '@clinic/contracts';
import type { Logger } from './logger';

/** How long JetStream remembers message ids, so a republished outbox entry is dropped as a duplicate. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && /not found/i.test(String((err as Error).message));
}

/** Creates the stream, or widens its subjects; safe when several processes start at once. */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec, log: Logger): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const info = await jsm.streams.info(spec.name);
      const missing = spec.subjects.filter((s) => !info.config.subjects.includes(s));
      if (missing.length > 0) {
        await jsm.streams.update(spec.name, { ...info.config, subjects: [...info.config.subjects, ...missing] });
        log.info({ stream: spec.name, added: missing }, 'stream subjects added');
      }
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      await jsm.streams.add({
        name: spec.name,
        subjects: spec.subjects,
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        discard: DiscardPolicy.Old,
        duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      });
      log.info({ stream: spec.name, subjects: spec.subjects }, 'stream created');
      return;
    } catch (err) {
      // Another process created it between our info and add: look again.
      log.debug({ err, stream: spec.name }, 'stream add raced');
    }
  }
  throw new Error(`Could not ensure stream ${spec.name}`);
}

/**
 * The durable pull consumers other hospital systems read the service's events
 * through, one per reader name, created when missing. They have no deliver
 * subject: a reader fetches into its own inbox. Safe when replicas start at once
 * (JetStream creates a consumer idempotently when the configuration is the same).
 */
export async function ensureEventReaders(jsm: JetStreamManager, stream: string, readers: readonly string[], log: Logger): Promise<void> {
  for (const reader of readers) {
    try {
      const info = await jsm.consumers.info(stream, reader);
      if (info.config.deliver_subject) {
        // Made by hand or by a version that let other systems create consumers: not ours to delete.
        log.error({ stream, consumer: reader, deliver_subject: info.config.deliver_subject }, 'event reader is a push consumer: delete it so that it is provisioned again as a pull consumer');
      }
      continue;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    await jsm.consumers.add(stream, {
      durable_name: reader,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(30_000),
      max_ack_pending: 1_000,
    });
    log.info({ stream, consumer: reader }, 'event reader consumer created');
  }
}
