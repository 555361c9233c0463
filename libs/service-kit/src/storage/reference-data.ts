import { headers, type JsMsg, type NatsConnection, type ConsumerMessages } from 'nats';
import type { Collection, Db } from 'mongodb';
import {
  DeadLetterHeaders,
  deadLetterSubject,
  DELETION_MARKER_SCHEMA,
  isDeletionMarker,
  REF_KINDS,
  REF_RECORD_SCHEMAS,
  REF_STREAM,
  REF_SUBJECT_PREFIX,
  refConsumerName,
  refRecordRuleProblem,
  type RefKind,
  type RefRecordByKind,
  type ServiceName,
} from '@clinic/contracts';
import { jetStreamManager, whileStarting } from '../nats/jetstream';
import { counter, metricsEnabled } from '../process/metrics';
import type { Logger } from '../process/logger';
import { OncePerMinute } from '../process/once-per-minute';
import { pauses, retryPolicy } from '../process/retry';
import { docKey, findByKeys, isDuplicateKeyError } from './database-quirks';
import { schemaProblem } from '../domain/schema';

export type StoredRef<K extends RefKind> = RefRecordByKind[K] & { _id: string; _seq: number; deleted: boolean };

export interface RefStatus {
  /** Highest stream sequence up to which every reference message has been applied. */
  applied_seq: number;
  pending: number;
}

/**
 * A service's local copy of the reference records it needs. Each record keeps
 * the stream sequence it came from, and an older message never overwrites a
 * newer one, so replicas applying in parallel and redeliveries are both safe.
 * Deletions leave a tombstone for the same reason.
 */
/** The collection holding a service's read model of one kind of reference record. */
export const refCollectionName = (kind: RefKind): string => `ref_${kind}s`;

/** A record as applied: its known fields, or a tombstone. */
export type AppliedRecord = Record<string, unknown> & { id: number; deleted: boolean };

export class ReferenceData {
  private readonly appliedListeners: Array<(kind: RefKind, record: AppliedRecord) => Promise<void>> = [];

  constructor(
    private readonly db: Db,
    readonly kinds: readonly RefKind[],
  ) {}

  /**
   * Runs after each record is applied, before the message is acknowledged (e.g. to bump cache versions); not for a
   * version older than the one stored.
   */
  onApplied(listener: (kind: RefKind, record: AppliedRecord) => Promise<void>): void {
    this.appliedListeners.push(listener);
  }

  collection<K extends RefKind>(kind: K): Collection<StoredRef<K>> {
    return this.db.collection<StoredRef<K>>(refCollectionName(kind));
  }

  /** The live record, or null when unknown or deleted. */
  async get<K extends RefKind>(kind: K, id: number): Promise<StoredRef<K> | null> {
    const doc = (await this.collection(kind).findOne({ _id: docKey(id) } as never)) as StoredRef<K> | null;
    return doc && !doc.deleted ? doc : null;
  }

  /** Live records by id, for joins. */
  async many<K extends RefKind>(kind: K, ids: number[]): Promise<Map<number, StoredRef<K>>> {
    const docs = (await findByKeys(this.collection(kind) as never, ids.map(docKey))) as StoredRef<K>[];
    return new Map(docs.filter((doc) => !doc.deleted).map((doc) => [doc.id, doc]));
  }

  /**
   * Stores the record unless a newer version of it (a later stream sequence) is stored already, and answers
   * whether this version now stands. Its listeners run only then, so that an outdated version acts on nothing;
   * the same message delivered again stands again (its listeners may not have finished the first time).
   */
  async apply(kind: RefKind, record: unknown, seq: number): Promise<boolean> {
    const rec = record as { id: number };
    const fields = isDeletionMarker(record)
      ? { id: rec.id, deleted: true }
      : { ...pickKnownFields(kind, record as Record<string, unknown>), deleted: false };
    try {
      await this.collection(kind).replaceOne(
        { _id: docKey(rec.id), _seq: { $lte: seq } } as never,
        { ...fields, _seq: seq } as never,
        { upsert: true },
      );
    } catch (err) {
      // The upsert collided with a newer version of the record: this one is outdated.
      if (!isDuplicateKeyError(err)) throw err;
      return false;
    }
    for (const listener of this.appliedListeners) await listener(kind, fields as AppliedRecord);
    return true;
  }
}

function pickKnownFields(kind: RefKind, record: Record<string, unknown>): Record<string, unknown> {
  const properties = Object.keys((REF_RECORD_SCHEMAS[kind].properties ?? {}) as Record<string, unknown>);
  return Object.fromEntries(properties.filter((p) => p in record).map((p) => [p, record[p]]));
}

/** Why a reference message cannot be applied, or null when it can. */
export function refRecordProblem(kind: RefKind, record: unknown): string | null {
  if (isDeletionMarker(record)) return schemaProblem(DELETION_MARKER_SCHEMA, record);
  return (
    schemaProblem(REF_RECORD_SCHEMAS[kind], record) ?? refRecordRuleProblem(kind, record as Record<string, unknown>)
  );
}

export function refKindOfSubject(subject: string): RefKind | null {
  const kind = subject.slice(REF_SUBJECT_PREFIX.length + 1);
  return (REF_KINDS as readonly string[]).includes(kind) ? (kind as RefKind) : null;
}

type DeadLetterReason = 'unknown_kind' | 'not_json' | 'invalid';

const deadLetters = counter(
  'clinic_reference_dead_letters_total',
  'Reference records not applied and stored as dead letters (HOSPITAL_REF_DEAD), by kind and reason',
  ['kind', 'reason'],
);

export interface ReferenceConsumer {
  status(): Promise<RefStatus>;
  stop(): Promise<void>;
}

/**
 * Follows the reference stream with the service's durable consumer: a service
 * that was down resumes where it stopped. Every kind is read (and the ones the
 * service does not keep are simply acknowledged) so that the consumer's ack
 * floor tells how far the service has applied the whole stream.
 */
export async function startReferenceConsumer(options: {
  nc: NatsConnection;
  service: ServiceName;
  refs: ReferenceData;
  log: Logger;
}): Promise<ReferenceConsumer> {
  const { nc, service, refs, log } = options;
  const jsm = await jetStreamManager(nc, log);
  const durable = refConsumerName(service);
  if (refs.kinds.length === 0) {
    // Nothing to keep: always up to date.
    return {
      status: async () => ({ applied_seq: (await jsm.streams.info(REF_STREAM.name)).state.last_seq, pending: 0 }),
      stop: async () => undefined,
    };
  }
  // Provisioned before the services start (provision.ts); a process that starts first waits for it.
  await whileStarting(log, { consumer: durable }, 'reference consumer not provisioned yet; trying again', () =>
    jsm.consumers.info(REF_STREAM.name, durable),
  );

  const js = nc.jetstream();
  let stopped = false;
  let messages: ConsumerMessages | null = null;
  const deadLetterWarnings = new OncePerMinute(log);

  /** A message that cannot be applied is stored with its reason, then acknowledged; never only skipped. */
  async function deadLetter(m: JsMsg, kind: string, reason: DeadLetterReason, detail: string): Promise<void> {
    try {
      const h = headers();
      // The detail quotes what the publisher sent: nothing in it may break a header line.
      h.set(DeadLetterHeaders.reason, headerSafe(`${reason}: ${detail}`));
      h.set(DeadLetterHeaders.subject, m.subject);
      h.set(DeadLetterHeaders.sequence, String(m.seq));
      // Every service that follows the stream meets it: one copy is stored (the message id).
      await js.publish(deadLetterSubject(kind), m.data, { headers: h, msgID: `ref-${m.seq}` });
    } catch (err) {
      log.error({ err, subject: m.subject, seq: m.seq }, 'dead letter not stored; the record will be redelivered');
      m.nak(1_000);
      return;
    }
    if (metricsEnabled()) deadLetters.inc({ kind, reason });
    // The dead letter is the record of it; the log says so once a minute per kind and reason, whatever a sender floods.
    deadLetterWarnings.warn(
      `${kind}:${reason}`,
      { kind, reason, subject: m.subject, seq: m.seq, detail },
      'reference record not applied; kept as a dead letter',
    );
    m.ack();
  }

  /** Printable ASCII only, at most 500 characters: what a NATS header value may hold whatever the record said. */
  function headerSafe(text: string): string {
    return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 500);
  }

  async function handle(m: JsMsg): Promise<void> {
    const kind = refKindOfSubject(m.subject);
    if (!kind) return deadLetter(m, 'unknown', 'unknown_kind', m.subject);
    if (!refs.kinds.includes(kind)) {
      m.ack();
      return;
    }
    let record: unknown;
    try {
      record = JSON.parse(new TextDecoder().decode(m.data));
    } catch {
      return deadLetter(m, kind, 'not_json', 'the message is not JSON');
    }
    const problem = refRecordProblem(kind, record);
    if (problem) return deadLetter(m, kind, 'invalid', problem);
    try {
      await refs.apply(kind, record, m.seq);
      m.ack();
    } catch (err) {
      log.error({ err, subject: m.subject, seq: m.seq }, 'reference record not applied; will be redelivered');
      m.nak(1_000);
    }
  }

  const resume = retryPolicy({
    retryOn: () => !stopped,
    retries: Infinity,
    pause: pauses.constant(1_000),
    onRetry: (err) => log.warn({ err }, 'reference consumer interrupted; resuming'),
  });
  const loop = resume
    .execute(async () => {
      const consumer = await js.consumers.get(REF_STREAM.name, durable);
      messages = await consumer.consume({ max_messages: 128 });
      for await (const m of messages) {
        // Whatever one record does, the loop goes on: it is delivered again, the others are not held.
        await handle(m).catch((err: unknown) => {
          log.error({ err, subject: m.subject, seq: m.seq }, 'reference record not handled; will be redelivered');
          m.nak(1_000);
        });
      }
      if (!stopped) throw new Error('reference consumer ended');
    })
    .catch(() => undefined); // stopped

  return {
    async status() {
      const info = await jsm.consumers.info(REF_STREAM.name, durable);
      return { applied_seq: info.ack_floor.stream_seq, pending: info.num_pending + info.num_ack_pending };
    },
    async stop() {
      stopped = true;
      messages?.stop();
      await loop;
    },
  };
}
