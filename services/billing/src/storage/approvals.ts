/**
 * Approvals, one document each: asked for, approved or declined
 * by an admin, then used once. Each change is a compare-and-set write of the
 * version read with its event, so that two requests racing to use one
 * approval cannot both have it, on any replica.
 */
import type { Collection, Db } from 'mongodb';
import { EventSubjects, type ApprovalStatus, type EventSubject } from '@clinic/contracts';
import { withFreshId, type StorageDeps } from '@clinic/service-kit/storage';
import type { Approval, ApprovalDoc } from '../domain/approvals';
import { docKey, type IndexSpec } from './database-quirks';
import { writeVersion } from './versioned-write';

export const APPROVALS = 'approvals';

export const APPROVAL_INDEXES = { byDay: 'approvals_by_day', byStatus: 'approvals_by_status' } as const;

export const APPROVAL_INDEX_DESCRIPTIONS: IndexSpec[] = [
  { key: { store_id: 1, day: 1 }, name: APPROVAL_INDEXES.byDay },
  { key: { store_id: 1, status: 1 }, name: APPROVAL_INDEXES.byStatus },
];

/** Who changes an approval, and how its events show it. */
export interface ApprovalContext {
  correlationId: string;
  view: (doc: Approval) => Record<string, unknown>;
}

/** Ids come from each replica's own block of the counter: the time they were asked orders them. */
const newestFirst = (docs: ApprovalDoc[]) =>
  docs.sort((a, b) => b.requested_at.getTime() - a.requested_at.getTime() || b.id - a.id);

export class Approvals {
  readonly approvals: Collection<ApprovalDoc>;

  constructor(
    db: Db,
    private readonly deps: StorageDeps,
  ) {
    this.approvals = db.collection<ApprovalDoc>(APPROVALS);
  }

  find(id: number): Promise<ApprovalDoc | null> {
    return this.approvals.findOne({ _id: docKey(id) });
  }

  /** A branch's approvals asked for on a day (and of a status), newest first. */
  async ofDay(storeId: number, day: string, status?: ApprovalStatus): Promise<ApprovalDoc[]> {
    const docs = await this.approvals.find({ store_id: storeId, day }).hint(APPROVAL_INDEXES.byDay).toArray();
    return newestFirst(status ? docs.filter((d) => d.status === status) : docs);
  }

  /** A branch's approvals of a status, whatever their day, newest first. */
  async withStatus(storeId: number, status: ApprovalStatus): Promise<ApprovalDoc[]> {
    const docs = await this.approvals.find({ store_id: storeId, status }).hint(APPROVAL_INDEXES.byStatus).toArray();
    return newestFirst(docs);
  }

  /** Stores a new approval under a fresh id, with its event (requested, or approved when an admin asked). */
  request(approval: Omit<Approval, 'id'>, context: ApprovalContext): Promise<ApprovalDoc> {
    return withFreshId(this.deps.ids, APPROVALS, this.approvals, async (id) => {
      const doc: ApprovalDoc = { ...approval, id, _id: docKey(id), version: 1, _event_ids: [] };
      const subject = doc.status === 'approved' ? EventSubjects.approvalApproved : EventSubjects.approvalRequested;
      return this.deps.outbox.record(
        {
          subject,
          data: { approval: context.view(doc) },
          correlationId: context.correlationId,
          collection: APPROVALS,
          key: doc._id,
        },
        async (eventId, options) => {
          doc._event_ids = [eventId];
          await this.approvals.insertOne(doc, options);
          return doc;
        },
      );
    });
  }

  /** A change of the version found with its event; null when the approval changed meanwhile. */
  change(
    found: ApprovalDoc,
    set: Partial<Approval>,
    subject: EventSubject,
    context: ApprovalContext,
  ): Promise<ApprovalDoc | null> {
    return writeVersion<ApprovalDoc>(this.deps.outbox, this.approvals, found, set, (after) => ({
      subject,
      data: { approval: context.view(after) },
      correlationId: context.correlationId,
    }));
  }
}
