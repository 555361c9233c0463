/**
 * What the outbox keeps: an event with the proof of its write and the
 * records stored with it, and the event ids an entity carries so that the
 * proof can be checked.
 */
import { randomUUID } from 'node:crypto';
import { BSON } from 'mongodb';
import type { DomainEvent, EventSubject } from '@clinic/contracts';
import { currentTraceCarrier } from '../process/tracing';

/**
 * How the sweeper tells whether the write an event describes happened, for an
 * entry whose process died (or failed) between recording the event and
 * handing it over: the write happened if a document matching `filter` exists
 * (or, with `exists: false`, if none does) in `collection`.
 */
export interface WriteProof {
  collection: string;
  filter: Record<string, unknown>;
  exists: boolean;
}

/** The usual proofs: the entity lists the event id, or the entity is gone. */
export type ProofKind = 'contains-event' | 'absent';

/**
 * A document that must exist exactly when the write an event describes
 * happened, such as an audit-trail entry: kept in the outbox entry, inserted
 * once the write succeeded (or, for a write the sweeper proved, by the relay).
 * It is stored under the event's id (so one record per collection and event),
 * which makes a second insert change nothing.
 */
export interface CarriedDoc {
  collection: string;
  doc: Record<string, unknown>;
}

export interface OutboxEntry {
  _id: string;
  subject: EventSubject;
  event: DomainEvent;
  proof: WriteProof;
  created_at: Date;
  records?: CarriedDoc[];
  /** What the write's entry holds back until its records are stored (see EventSpec.fences). */
  fences?: string[];
  /** The W3C trace context of the request that recorded the event, when tracing is on. */
  trace?: Record<string, string>;
}

export interface EventSpec {
  subject: EventSubject;
  data: Record<string, unknown>;
  correlationId: string;
  /** Stored after the write, exactly once (see CarriedDoc). */
  records?: CarriedDoc[];
  /** The event's id, when the write must know it first (it names a record the write stores); else a fresh one. */
  eventId?: string;
  /**
   * Names the entry holds from before its write until the write has landed
   * and the entry's records are stored (published or not): whoever must wait
   * for every write of something in flight (a day being closed) asks
   * Outbox.holdsFence.
   */
  fences?: string[];
  /**
   * More events of the same write (Outbox.record), published after this one:
   * they share its proof, so they are published exactly when it is, and
   * their records are stored with it; only this event's id goes on the entity.
   */
  alongside?: EventSpec[];
}

/** What a write described by outbox entries takes (PreparedEvents.writeOptions): the server's time limit for it. */
export interface WriteOptions {
  maxTimeMS?: number;
}

/** Events recorded ahead of their writes: released when a write succeeded, discarded when it certainly failed. */
export interface PreparedEvents {
  entries: OutboxEntry[];
  /** When the entries were stored (their created_at): the sweeper's grace period and the write window run from it. */
  storedAt: Date;
  /** Hands these (default: all) to the relay. */
  release(eventIds?: string[]): void;
  /**
   * After their writes succeeded: stores the entries' records now, so that the
   * caller's answer follows them, then releases them. A record that cannot be
   * stored now is left to the relay, which stores it before it publishes.
   */
  settle(eventIds?: string[]): Promise<void>;
  /** Deletes the entries of writes that certainly did not happen. */
  discard(eventIds?: string[]): Promise<void>;
  /** Stops tracking entries whose writes may or may not have happened: the sweeper decides. */
  forget(eventIds?: string[]): void;
  /**
   * Runs a step between storing the entries and attempting their write (a
   * check that may refuse it); when the step fails, the write will never be
   * attempted, so the entries are discarded at once, their fences with them.
   */
  beforeWrite<T>(step: () => Promise<T>): Promise<T>;
  /**
   * Right before the write: the options it must be sent with, so that it
   * cannot land after the sweeper may have given up on it (the server's time
   * limit: what is left of the write window, which runs from storedAt). When
   * the window has passed, throws a ServiceError (503): the write must not be
   * attempted, and the caller discards the entries.
   */
  writeOptions(): WriteOptions;
}

/** The proof that an entity write recorded `eventId` (see withEventId). */
export function entityProof(collection: string, key: string, eventId: string): WriteProof {
  return { collection, filter: { _id: key, _event_ids: eventId }, exists: true };
}

export const newEventId = (): string => randomUUID();

/**
 * How many recent event ids an entity keeps: enough for the sweeper to prove
 * its recent writes. The list is bounded here rather than with `$push`'s
 * `$slice`, which FerretDB v1 ignores: entities would grow with every update,
 * and every read decodes them whole.
 */
export const EVENT_IDS_KEPT = 20;

/** The entity's event ids after a write that records `eventId` (set in the same update as the change). */
export function withEventId(current: string[] | undefined, eventId: string): string[] {
  return [...(current ?? []).slice(-(EVENT_IDS_KEPT - 1)), eventId];
}

/** The outbox entry of an event, with the trace context of the request that records it. */
export function outboxEntry(eventId: string, spec: EventSpec, proof: WriteProof): OutboxEntry {
  const trace = currentTraceCarrier();
  return {
    _id: eventId,
    subject: spec.subject,
    event: {
      event_id: eventId,
      type: spec.subject,
      occurred_at: new Date().toISOString(),
      correlation_id: spec.correlationId,
      data: spec.data,
    },
    proof,
    created_at: new Date(),
    ...(spec.records?.length ? { records: spec.records } : {}),
    ...(spec.fences?.length ? { fences: spec.fences } : {}),
    ...(trace ? { trace } : {}),
  };
}

/**
 * An entry as the `outbox` collection holds it: one Extended JSON text beside the creation time the sweeper sorts
 * by, far cheaper to store than nested fields (docs/architecture.md: Outbox without transactions).
 */
export interface StoredOutboxEntry {
  _id: string;
  created_at: Date;
  entry: string;
  /** The entry's fences, where a query can find them. */
  fences?: string[];
}

export function storedEntry(entry: OutboxEntry): StoredOutboxEntry {
  // As the driver stores an undefined field: null (JSON would drop it).
  const text = BSON.EJSON.stringify(entry, (_key, value) => (value === undefined ? null : value), undefined, {
    relaxed: true,
  });
  return {
    _id: entry._id,
    created_at: entry.created_at,
    entry: text,
    ...(entry.fences ? { fences: entry.fences } : {}),
  };
}

/** The entry a stored one holds; entries stored whole, by earlier versions, are read as they are. */
export function entryOf(stored: StoredOutboxEntry | OutboxEntry): OutboxEntry {
  return 'entry' in stored && typeof stored.entry === 'string'
    ? (BSON.EJSON.parse(stored.entry, { relaxed: true }) as OutboxEntry)
    : (stored as OutboxEntry);
}

/**
 * The entries of one write: its event, then the events alongside it, each
 * with the write's proof and its fences.
 */
export function withAlongside(
  spec: EventSpec & { eventId: string },
  proof: WriteProof,
): Array<EventSpec & { eventId: string; proof: WriteProof }> {
  const { alongside = [], ...main } = spec;
  return [
    { ...main, proof },
    ...alongside.map((extra) => ({
      ...extra,
      eventId: extra.eventId ?? newEventId(),
      fences: extra.fences ?? main.fences,
      proof,
    })),
  ];
}
