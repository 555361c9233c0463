/**
 * Audit trails: one immutable entry per change of an entity, stored through
 * the outbox as a CarriedDoc of the change's event, so that an entry exists
 * exactly when its change does. An entry's id is its event's id.
 */
import type { Collection, Db, IndexDescription } from 'mongodb';
import type { Caller } from '@clinic/contracts';
import type { ClinicClock } from '../domain/clock';
import type { CarriedDoc } from './outbox-entries';
import type { Page } from '../nats/request-params';

export interface FieldChange {
  before: unknown;
  after: unknown;
}

export interface AuditEntryDoc {
  _id: string;
  entity_id: number;
  action: string;
  at: Date;
  by: Caller;
  correlation_id: string | null;
  changes: Record<string, FieldChange>;
  reason?: string | null;
  /** AuditedChange.details, as given. */
  [detail: string]: unknown;
}

export interface AuditEntryView {
  event_id: string;
  action: string;
  at: string;
  by: Caller;
  correlation_id: string | null;
  changes: Record<string, FieldChange>;
  reason?: string | null;
}

/** The fields among `fields` whose values differ between two views of an entity (`before` null: it is new). */
export function fieldChanges(
  before: Record<string, unknown> | null,
  after: Record<string, unknown>,
  fields: readonly string[],
): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  for (const field of fields) {
    const was = before === null ? null : (before[field] ?? null);
    const now = after[field] ?? null;
    if (before === null || JSON.stringify(was) !== JSON.stringify(now)) changes[field] = { before: was, after: now };
  }
  return changes;
}

export interface AuditedChange {
  entityId: number;
  action: string;
  actor: Caller;
  correlationId: string | null;
  changes: Record<string, FieldChange>;
  /** Only for actions that take one (a cancellation). */
  reason?: string | null;
  /** More of what the change did, shown with the entry as given (what it moved, say). */
  details?: Record<string, unknown>;
}

/** The one index of an audit trail's collection: an entity's entries in order, and its entries of a kind. */
export function auditTrailIndex(collectionName: string): IndexDescription & { name: string } {
  return { key: { entity_id: 1, at: 1 }, name: `${collectionName}_by_entity` };
}

export class AuditTrail {
  private readonly entries: Collection<AuditEntryDoc>;
  /** Serves an entity's entries in order, and its entries of a kind (filtered on the rest). */
  readonly indexName: string;

  constructor(
    db: Db,
    readonly collectionName: string,
    private readonly clock: ClinicClock,
  ) {
    this.entries = db.collection<AuditEntryDoc>(collectionName);
    this.indexName = auditTrailIndex(collectionName).name;
  }

  /** The entry of a change, to record with the change's event (Outbox EventSpec.records). */
  record(change: AuditedChange): CarriedDoc {
    const doc: Omit<AuditEntryDoc, '_id'> = {
      entity_id: change.entityId,
      action: change.action,
      at: new Date(),
      by: { sub: change.actor.sub, role: change.actor.role },
      correlation_id: change.correlationId,
      changes: change.changes,
      ...(change.reason !== undefined ? { reason: change.reason } : {}),
      ...change.details,
    };
    return { collection: this.collectionName, doc };
  }

  /** A page of an entity's entries, oldest first (ties by id, so that pages neither repeat nor skip one), and how many it has. */
  async page(entityId: number, page: Page): Promise<{ entries: AuditEntryView[]; total: number }> {
    const filter = { entity_id: entityId };
    const [docs, total] = await Promise.all([
      this.entries
        .find(filter)
        .sort({ at: 1, _id: 1 })
        .skip((page.page - 1) * page.per_page)
        .limit(page.per_page)
        .hint(this.indexName)
        .toArray(),
      this.entries.countDocuments(filter, { hint: this.indexName }),
    ]);
    return { entries: docs.map((doc) => this.view(doc)), total };
  }

  /** The latest entry of `action` for each of these entities that has one. */
  async latest(entityIds: number[], action: string): Promise<Map<number, AuditEntryDoc>> {
    const latest = new Map<number, AuditEntryDoc>();
    if (entityIds.length === 0) return latest;
    const docs = await this.entries
      .find({ entity_id: { $in: [...new Set(entityIds)] }, action })
      .sort({ entity_id: 1, at: 1 })
      .hint(this.indexName)
      .toArray();
    for (const doc of docs) latest.set(doc.entity_id, doc);
    return latest;
  }

  view(doc: AuditEntryDoc): AuditEntryView {
    const { _id, entity_id: _entity, action, at, by, correlation_id, changes, ...details } = doc;
    return {
      event_id: _id,
      action,
      at: this.clock.timestamp(at) as string,
      by,
      correlation_id,
      changes,
      ...details,
    };
  }
}
