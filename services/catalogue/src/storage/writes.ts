/**
 * Writes of charges: create, update and soft delete, each through the one
 * write path (RecordWriter) with its event and its history entry.
 */
import type { Collection } from 'mongodb';
import { EventSubjects, type Caller, type ChargeHistoryAction, type EventSubject } from '@clinic/contracts';
import {
  fieldChanges,
  RecordWriter,
  type AuditTrail,
  type EventSpec,
  type StorageDeps,
} from '@clinic/service-kit/storage';
import { docKey } from './database-quirks';
import { nameKey, type ChargeFields, type NewCharge } from '../domain/rules';
import type { ChargeDoc, ShowCharge } from '../domain/charge';
import { AUDITED_FIELDS, CHARGE_COUNTER, branchScope, chargeScope } from './documents';

/** Who asked for a change, for its history entry. */
export interface ChangeContext {
  actor: Caller;
  correlationId: string;
  /** What its history entry records besides the change (the approval it used). */
  details?: Record<string, unknown>;
}

export class ChargeWrites {
  private readonly records: RecordWriter<ChargeDoc>;

  constructor(
    charges: Collection<ChargeDoc>,
    private readonly history: AuditTrail,
    private readonly deps: StorageDeps,
    findLive: (id: number) => Promise<ChargeDoc | null>,
    private readonly show: ShowCharge,
  ) {
    this.records = new RecordWriter({
      ...deps,
      collection: charges,
      recordKind: 'charge',
      counter: CHARGE_COUNTER,
      find: findLive,
      stillWritable: { is_deleted: false },
      notFound: 'CHARGE_NOT_FOUND',
      // Another live charge of the branch holds the name.
      duplicate: 'CHARGE_NAME_TAKEN',
      // The charge, and the lists of its branch (and of the branch it left, were it moved).
      written: (doc, before) =>
        deps.cache.bump(chargeScope(doc.id), branchScope(doc.store_id), branchScope(before?.store_id ?? doc.store_id)),
    });
  }

  create(input: NewCharge, context: ChangeContext): Promise<ChargeDoc> {
    return this.records.insert(async (id) => {
      const doc: ChargeDoc = {
        _id: docKey(id),
        id,
        ...input,
        name_key: nameKey(input.charge_name),
        live_key: 0,
        is_deleted: false,
        created_by: context.actor.sub,
        updated_by: null,
        created_at: new Date(),
        updated_at: null,
        _event_ids: [],
      };
      return { doc, event: this.eventOf(null, doc, EventSubjects.chargeCreated, 'created', context) };
    });
  }

  /**
   * Replaces a live charge's fields (404 when there is none) with what `check`
   * returns for it; null leaves it as it is. Answers the charge as written, or 'unchanged'.
   */
  async update(
    id: number,
    context: ChangeContext,
    check: (existing: ChargeDoc) => Promise<ChargeFields | null>,
  ): Promise<ChargeDoc | 'unchanged'> {
    const outcome = await this.records.change(id, async (existing) => {
      const fields = await check(existing);
      if (fields === null) return null;
      return {
        set: {
          ...fields,
          name_key: nameKey(fields.charge_name),
          updated_by: context.actor.sub,
          updated_at: new Date(),
        },
        event: (after) => this.eventOf(existing, after, EventSubjects.chargeUpdated, 'updated', context),
      };
    });
    return outcome === null ? 'unchanged' : outcome;
  }

  /** Marks a live charge deleted (404 when there is none) once `check` has accepted it; it frees its name in the branch. */
  async softDelete(id: number, context: ChangeContext, check: (existing: ChargeDoc) => Promise<void>): Promise<void> {
    await this.records.change(id, async (existing) => {
      await check(existing);
      return {
        set: { is_deleted: true, live_key: existing.id, updated_by: context.actor.sub, updated_at: new Date() },
        event: (after) => this.eventOf(existing, after, EventSubjects.chargeDeleted, 'deleted', context),
      };
    });
  }

  /** A change's event and its history entry (see Outbox.record). */
  private eventOf(
    before: ChargeDoc | null,
    after: ChargeDoc,
    subject: EventSubject,
    action: ChargeHistoryAction,
    context: ChangeContext,
  ): EventSpec {
    const view = this.show(after, this.deps.clock);
    const entry = this.history.record({
      entityId: after.id,
      action,
      actor: context.actor,
      correlationId: context.correlationId,
      changes: fieldChanges(before && { ...this.show(before, this.deps.clock) }, { ...view }, AUDITED_FIELDS),
      ...(context.details ? { details: context.details } : {}),
    });
    return { subject, data: { charge: view }, correlationId: context.correlationId, records: [entry] };
  }
}
