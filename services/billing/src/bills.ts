/** Lab-bill operations: the spec's steps in order, over the storage layer and the read models. */
import { createHash } from 'node:crypto';
import { success, type Caller, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import {
  badRequest,
  callerOf,
  EncodedReply,
  conflict,
  fromCents,
  notFound,
  pathId,
  unprocessable,
  type ClinicClock,
  type HandlerContext,
  type RecordLocks,
  type ReferenceData,
} from '@clinic/service-kit';
import { countBillCreated } from './metrics';
import type { CatalogueClient } from './catalogue-client';
import { billView, itemsView, type BillDoc, type BillStore, type IdempotencyClaim } from './storage';
import {
  computeTotals,
  MESSAGES,
  pageCount,
  parseBillUpdate,
  parseListQuery,
  parseNewBill,
  parseSummaryQuery,
} from './rules';

/** JSON with sorted keys, so that the same request hashes the same however its keys are ordered. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function idempotencyOf(ctx: HandlerContext, caller: Caller, body: unknown): IdempotencyClaim | null {
  if (!ctx.idempotencyKey) return null;
  return {
    key: `${JSON.stringify(caller.sub)}:${ctx.idempotencyKey}`,
    requestHash: createHash('sha256').update(canonicalJson(body)).digest('hex'),
  };
}

/** The cache scope of the users' names that reads show as billed_by_name. */
export const USER_NAMES_SCOPE = 'refs:user';

function createdReply(doc: BillDoc): ServiceReply {
  return success(201, {
    message: MESSAGES.created,
    bill_id: doc.id,
    bill_number: doc.bill_number,
    grand_total: fromCents(doc.grand_total_cents),
  });
}

export class BillOperations {
  constructor(
    private readonly store: BillStore,
    private readonly refs: ReferenceData,
    private readonly catalogue: CatalogueClient,
    private readonly locks: RecordLocks,
    private readonly clock: ClinicClock,
  ) {}

  async create(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const caller = callerOf(ctx);
    const idempotency = idempotencyOf(ctx, caller, request.body);
    if (idempotency) {
      const replay = await this.replay(idempotency);
      if (replay) return replay;
    }
    const input = parseNewBill(request.body, caller); // rules 1-6
    const store = await this.refs.get('store', input.store_id); // rule 7
    if (!store || store.status !== 'active') throw notFound(MESSAGES.storeNotFound);
    if (input.patient_id !== null && !(await this.refs.get('patient', input.patient_id))) {
      throw notFound(MESSAGES.patientNotFound); // rule 8
    }
    const chargeIds = input.items.map((item) => item.charge_id);
    const invalid = await this.catalogue.unbillable(input.store_id, chargeIds, ctx); // rule 9
    if (invalid.length > 0) {
      throw badRequest(`Invalid charge_id(s) for store ${input.store_id}: ${invalid.join(', ')}. Each charge must be Active and belong to the bill's store.`);
    }
    const totals = computeTotals(input.items, input.discount_type, input.discount_value); // rule 10
    const { doc, replayed } = await this.store.writes.create(input, totals, { correlationId: ctx.correlationId, idempotency }); // rules 11-12
    if (idempotency) {
      if (replayed && doc.request_hash !== idempotency.requestHash) throw unprocessable(MESSAGES.idempotencyMismatch);
      if (!replayed) await this.store.claims.save(idempotency, doc.id);
    }
    if (!replayed) countBillCreated();
    return createdReply(doc);
  }

  /** The first answer again, for a request repeated with the same Idempotency-Key. */
  private async replay(idempotency: IdempotencyClaim): Promise<ServiceReply | null> {
    const claim = await this.store.claims.find(idempotency.key);
    if (!claim) return null;
    if (claim.request_hash !== idempotency.requestHash) throw unprocessable(MESSAGES.idempotencyMismatch);
    const doc = await this.store.queries.findById(claim.bill_id);
    return doc ? createdReply(doc) : null;
  }

  /** Kept, serialized, until the branch's bills or the users' names change. */
  async list(request: ServiceRequest): Promise<EncodedReply> {
    const { filter, page } = parseListQuery(request.query);
    return this.store.queries.cachedPage(
      filter,
      page,
      async (docs, total) => {
        const names = await this.userNames(docs);
        const bills = docs.map((doc) => billView(doc, this.clock, names.get(doc.billed_by ?? 0) ?? null));
        return new EncodedReply(
          success(200, { bills, count: bills.length, total, page: page.page, per_page: page.per_page, pages: pageCount(total, page.per_page) }),
        );
      },
      [USER_NAMES_SCOPE],
    );
  }

  async summary(request: ServiceRequest): Promise<ServiceReply> {
    return success(200, { summary: await this.store.queries.summary(parseSummaryQuery(request.query)) });
  }

  async get(request: ServiceRequest): Promise<ServiceReply> {
    const doc = await this.store.queries.findLive(pathId(request, 'bill_id', MESSAGES.notFound));
    if (!doc) throw notFound(MESSAGES.notFound);
    const names = await this.userNames([doc]);
    return success(200, { bill: { ...billView(doc, this.clock, names.get(doc.billed_by ?? 0) ?? null), items: itemsView(doc) } });
  }

  async update(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', MESSAGES.notFound);
    const changes = parseBillUpdate(request.body); // rules 1-4
    await this.locks.run('bill', id, async () => {
      const existing = await this.store.queries.findLive(id); // rule 5
      if (!existing) throw notFound(MESSAGES.notFound);
      if (existing.status === 'cancelled') throw conflict(MESSAGES.cancelledBill); // rule 6
      await this.store.writes.update(existing, changes, ctx.correlationId); // rule 7
    });
    return success(200, { message: MESSAGES.updated });
  }

  async cancel(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', MESSAGES.notFound);
    await this.locks.run('bill', id, async () => {
      const existing = await this.store.queries.findLive(id);
      if (!existing) throw notFound(MESSAGES.notFound);
      if (existing.status === 'cancelled') throw conflict(MESSAGES.alreadyCancelled);
      await this.store.writes.cancel(existing, ctx.correlationId);
    });
    return success(200, { message: MESSAGES.cancelled });
  }

  private async userNames(docs: BillDoc[]): Promise<Map<number, string>> {
    const ids = docs.map((d) => d.billed_by).filter((id): id is number => id !== null);
    const users = await this.refs.many('user', ids);
    return new Map([...users].map(([id, user]) => [id, user.name]));
  }
}
