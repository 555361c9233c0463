import type { Collection, Db } from 'mongodb';
import { EventSubjects, type Caller, type ChargeHistoryAction, type EventSubject } from '@clinic/contracts';
import {
  AuditTrail,
  conflict,
  ensureIndexes,
  docKey,
  escapeRegExp,
  fieldChanges,
  fromCents,
  isDuplicateKeyError,
  notFound,
  withEventId,
  withFreshId,
  type ClinicClock,
  type IdAllocator,
  type Outbox,
  type VersionedCache,
} from '@clinic/service-kit';
import { MESSAGES, nameKey, type ChargeFields, type ChargeListFilter, type NewCharge } from './rules';

export interface ChargeDoc extends ChargeFields {
  _id: string;
  id: number;
  store_id: number;
  name_key: string;
  /**
   * 0 while the charge is live, its id once deleted. The unique index on
   * (store_id, name_key, live_key) therefore holds among live charges only,
   * without a partial index (FerretDB v1 has none).
   */
  live_key: number;
  is_deleted: boolean;
  created_by: Caller['sub'];
  updated_by: Caller['sub'] | null;
  created_at: Date;
  updated_at: Date | null;
  _event_ids: string[];
}

export interface ChargeView {
  id: number;
  charge_name: string;
  charge_type: string;
  amount: number;
  status: string;
  notes: string | null;
  store_id: number;
  created_by: Caller['sub'];
  updated_by: Caller['sub'] | null;
  created_at: string | null;
  updated_at: string | null;
}

const COLLECTION = 'charges';
/** Charges' audit trail: one entry per create, update and delete, never changed. */
const HISTORY = 'charge_history';
/** What a charge's history compares between before and after a change. */
const AUDITED_FIELDS = ['charge_name', 'charge_type', 'amount', 'status', 'notes', 'store_id'] as const;
/** The cache scope of one branch's charges. */
const storeScope = (storeId: number) => `charges:store:${storeId}`;

export class ChargeRepository {
  private readonly charges: Collection<ChargeDoc>;
  readonly history: AuditTrail;

  constructor(
    db: Db,
    private readonly ids: IdAllocator,
    private readonly outbox: Outbox,
    private readonly clock: ClinicClock,
    private readonly cache: VersionedCache,
  ) {
    this.charges = db.collection<ChargeDoc>(COLLECTION);
    this.history = new AuditTrail(db, HISTORY, clock);
  }

  async ensureIndexes(): Promise<void> {
    await ensureIndexes(this.charges, [
      { key: { store_id: 1, name_key: 1, live_key: 1 }, name: 'charge_name_unique_per_store', unique: true },
      { key: { store_id: 1, is_deleted: 1, status: 1 }, name: 'charges_by_store' },
    ]);
    await this.history.ensureIndexes();
  }

  view(doc: ChargeDoc): ChargeView {
    return {
      id: doc.id,
      charge_name: doc.charge_name,
      charge_type: doc.charge_type,
      amount: fromCents(doc.amount_cents),
      status: doc.status,
      notes: doc.notes,
      store_id: doc.store_id,
      created_by: doc.created_by,
      updated_by: doc.updated_by,
      created_at: this.clock.timestamp(doc.created_at),
      updated_at: this.clock.timestamp(doc.updated_at),
    };
  }

  /** A charge that exists and is not deleted. */
  async findLive(id: number): Promise<ChargeDoc | null> {
    return this.charges.findOne({ _id: docKey(id), is_deleted: false });
  }

  /** Whether a charge was ever created (deleted ones included). */
  async exists(id: number): Promise<boolean> {
    return (await this.charges.findOne({ _id: docKey(id) }, { projection: { _id: 1 } })) !== null;
  }

  /**
   * Live charges of a store as the API shows them, by name (case-insensitively, as people read a list),
   * passed through `present` once per version of the data and kept.
   */
  list<T>(filter: ChargeListFilter, present: (charges: ChargeView[]) => T): Promise<T> {
    return this.cache.get(storeScope(filter.store_id), JSON.stringify(filter), async () =>
      present((await this.query(filter)).map((d) => this.view(d))),
    );
  }

  private async query(filter: ChargeListFilter): Promise<ChargeDoc[]> {
    const query: Record<string, unknown> = { store_id: filter.store_id, is_deleted: false };
    if (filter.status !== undefined) query.status = filter.status;
    if (filter.charge_type !== undefined) query.charge_type = filter.charge_type;
    if (filter.search !== undefined) {
      const literal = { $regex: escapeRegExp(filter.search), $options: 'i' };
      query.$or = [{ charge_name: literal }, { notes: literal }];
    }
    const docs = await this.charges.find(query).toArray();
    return docs.sort((a, b) => a.name_key.localeCompare(b.name_key) || a.charge_name.localeCompare(b.charge_name) || a.id - b.id);
  }

  async create(input: NewCharge, actor: Caller, correlationId: string): Promise<ChargeDoc> {
    try {
      const doc = await withFreshId(this.ids, COLLECTION, this.charges, async (id) => {
        const doc: ChargeDoc = {
          _id: docKey(id),
          id,
          ...input,
          name_key: nameKey(input.charge_name),
          live_key: 0,
          is_deleted: false,
          created_by: actor.sub,
          updated_by: null,
          created_at: new Date(),
          updated_at: null,
          _event_ids: [],
        };
        await this.withEvent(EventSubjects.chargeCreated, { before: null, after: doc, action: 'created', actor, correlationId }, (eventId) =>
          this.charges.insertOne({ ...doc, _event_ids: [eventId] }),
        );
        return doc;
      });
      await this.cache.bump(storeScope(input.store_id));
      return doc;
    } catch (err) {
      if (isDuplicateKeyError(err)) throw conflict(MESSAGES.duplicate);
      throw err;
    }
  }

  async update(existing: ChargeDoc, fields: ChargeFields, actor: Caller, correlationId: string): Promise<void> {
    const changes = { ...fields, name_key: nameKey(fields.charge_name), updated_by: actor.sub, updated_at: new Date() };
    await this.changeLive(existing, changes, EventSubjects.chargeUpdated, { action: 'updated', actor, correlationId });
  }

  async softDelete(existing: ChargeDoc, actor: Caller, correlationId: string): Promise<void> {
    const changes = { is_deleted: true, live_key: existing.id, updated_by: actor.sub, updated_at: new Date() };
    await this.changeLive(existing, changes, EventSubjects.chargeDeleted, { action: 'deleted', actor, correlationId });
  }

  /** Ids among `ids` that cannot be billed in `storeId`: missing, deleted, not Active or of another store. */
  async unbillable(storeId: number, ids: number[]): Promise<number[]> {
    const billable = await this.cache.get(storeScope(storeId), 'billable', async () => {
      const docs = await this.charges.find({ store_id: storeId, is_deleted: false, status: 'Active' }, { projection: { id: 1 } }).toArray();
      return new Set(docs.map((d) => d.id));
    });
    return [...new Set(ids)].filter((id) => !billable.has(id));
  }

  private async changeLive(
    existing: ChargeDoc,
    changes: Partial<ChargeDoc>,
    subject: EventSubject,
    change: { action: ChargeHistoryAction; actor: Caller; correlationId: string },
  ): Promise<void> {
    const after: ChargeDoc = { ...existing, ...changes };
    try {
      await this.withEvent(subject, { ...change, before: existing, after }, async (eventId) => {
        const result = await this.charges.updateOne(
          { _id: existing._id, is_deleted: false },
          { $set: { ...changes, _event_ids: withEventId(existing._event_ids, eventId) } },
        );
        if (result.matchedCount === 0) throw notFound(MESSAGES.notFound);
      });
    } catch (err) {
      if (isDuplicateKeyError(err)) throw conflict(MESSAGES.duplicate);
      throw err;
    }
    await this.cache.bump(storeScope(existing.store_id));
  }

  /** Runs a write with its event and its history entry (see Outbox.record). */
  private withEvent<T>(
    subject: EventSubject,
    change: { before: ChargeDoc | null; after: ChargeDoc; action: ChargeHistoryAction; actor: Caller; correlationId: string },
    write: (eventId: string) => Promise<T>,
  ): Promise<T> {
    const after = this.view(change.after);
    const entry = this.history.record({
      entityId: change.after.id,
      action: change.action,
      actor: change.actor,
      correlationId: change.correlationId,
      changes: fieldChanges(change.before && { ...this.view(change.before) }, { ...after }, AUDITED_FIELDS),
    });
    return this.outbox.record(
      { subject, data: { charge: after }, collection: COLLECTION, key: change.after._id, correlationId: change.correlationId, records: [entry] },
      write,
    );
  }
}
