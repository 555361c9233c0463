/** Lab-bill operations: the spec's steps in order, over the repository and the read models. */
import { createHash } from 'node:crypto';
import { success, type Caller, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import {
  badRequest,
  callerOf,
  conflict,
  fromCents,
  notFound,
  pathId,
  unprocessable,
  type HandlerContext,
  type RecordLocks,
  type ReferenceData,
} from '@clinic/service-kit';
import type { CatalogueClient } from './catalogue-client';
import type { BillDoc, BillRepository, IdempotencyClaim } from './repository';
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
    private readonly repo: BillRepository,
    private readonly refs: ReferenceData,
    private readonly catalogue: CatalogueClient,
    private readonly locks: RecordLocks,
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
    const { doc, replayed } = await this.repo.create(input, totals, { correlationId: ctx.correlationId, idempotency }); // rules 11-12
    if (idempotency) {
      if (replayed && doc.request_hash !== idempotency.requestHash) throw unprocessable(MESSAGES.idempotencyMismatch);
      if (!replayed) await this.repo.saveClaim(idempotency, doc);
    }
    return createdReply(doc);
  }

  /** The first answer again, for a request repeated with the same Idempotency-Key. */
  private async replay(idempotency: IdempotencyClaim): Promise<ServiceReply | null> {
    const claim = await this.repo.findClaim(idempotency.key);
    if (!claim) return null;
    if (claim.request_hash !== idempotency.requestHash) throw unprocessable(MESSAGES.idempotencyMismatch);
    const doc = await this.repo.findById(claim.bill_id);
    return doc ? createdReply(doc) : null;
  }

  async list(request: ServiceRequest): Promise<ServiceReply> {
    const { filter, page } = parseListQuery(request.query);
    const { docs, total } = await this.repo.list(filter, page);
    const names = await this.userNames(docs);
    const bills = docs.map((doc) => this.repo.view(doc, names.get(doc.billed_by ?? 0) ?? null));
    return success(200, {
      bills,
      count: bills.length,
      total,
      page: page.page,
      per_page: page.per_page,
      pages: pageCount(total, page.per_page),
    });
  }

  async summary(request: ServiceRequest): Promise<ServiceReply> {
    return success(200, { summary: await this.repo.summary(parseSummaryQuery(request.query)) });
  }

  async get(request: ServiceRequest): Promise<ServiceReply> {
    const doc = await this.repo.findLive(pathId(request, 'bill_id', MESSAGES.notFound));
    if (!doc) throw notFound(MESSAGES.notFound);
    const names = await this.userNames([doc]);
    return success(200, { bill: { ...this.repo.view(doc, names.get(doc.billed_by ?? 0) ?? null), items: this.repo.itemsView(doc) } });
  }

  async update(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', MESSAGES.notFound);
    const changes = parseBillUpdate(request.body); // rules 1-4
    await this.locks.run('bill', id, async () => {
      const existing = await this.repo.findLive(id); // rule 5
      if (!existing) throw notFound(MESSAGES.notFound);
      if (existing.status === 'cancelled') throw conflict(MESSAGES.cancelledBill); // rule 6
      await this.repo.update(existing, changes, ctx.correlationId); // rule 7
    });
    return success(200, { message: MESSAGES.updated });
  }

  async cancel(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', MESSAGES.notFound);
    await this.locks.run('bill', id, async () => {
      const existing = await this.repo.findLive(id);
      if (!existing) throw notFound(MESSAGES.notFound);
      if (existing.status === 'cancelled') throw conflict(MESSAGES.alreadyCancelled);
      await this.repo.cancel(existing, ctx.correlationId);
    });
    return success(200, { message: MESSAGES.cancelled });
  }

  private async userNames(docs: BillDoc[]): Promise<Map<number, string>> {
    const ids = docs.map((d) => d.billed_by).filter((id): id is number => id !== null);
    const users = await this.refs.many('user', ids);
    return new Map([...users].map(([id, user]) => [id, user.name]));
  }
}
