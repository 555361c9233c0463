import { DiscardPolicy, nanos, RetentionPolicy, StorageType, type JetStreamManager } from 'nats';
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
