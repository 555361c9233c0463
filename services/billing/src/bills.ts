/** Lab-bill operations: the spec's steps in order, over the storage layer and the read models. */
import { createHash } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import {
  BILLING_MESSAGES,
  success,
  type BinaryReplyBody,
  type Caller,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import {
  badRequest,
  callerOf,
  EncodedReply,
  conflict,
  foundInBranch,
  fromCents,
  notFound,
  pageFields,
  parsePage,
  pathId,
  requireBranch,
  unprocessable,
  type ClinicClock,
  type HandlerContext,
  type ReferenceData,
} from '@clinic/service-kit';
import { cashiersOf } from './day-end-report';
import { countBillCreated } from './metrics';
import type { CatalogueClient } from './catalogue-client';
import { renderReceipt } from './receipt';
import {
  billView,
  itemsInOrder,
  itemsView,
  summarize,
  type BillDoc,
  type BillStore,
  type IdempotencyClaim,
} from './storage';
import { parseDayEndQuery, parseListQuery, parseReceiptSize, parseSummaryQuery } from './filters';
import { computeTotals, parseBillUpdate, parseCancelReason, parseNewBill } from './rules';

function idempotencyOf(ctx: HandlerContext, caller: Caller, body: unknown): IdempotencyClaim | null {
  if (!ctx.idempotencyKey) return null;
  return {
    key: `${JSON.stringify(caller.sub)}:${ctx.idempotencyKey}`,
    // JSON with sorted keys, so that the same request hashes the same however its keys are ordered.
    requestHash: createHash('sha256')
      .update(stableStringify(body) ?? 'null')
      .digest('hex'),
  };
}

/** The cache scope of the users' names that reads show as billed_by_name. */
export const USER_NAMES_SCOPE = 'refs:user';

function createdReply(doc: BillDoc): ServiceReply {
  return success(201, {
    message: BILLING_MESSAGES.created,
    bill_id: doc.id,
    bill_number: doc.bill_number,
    grand_total: fromCents(doc.grand_total_cents),
  });
}

export interface BillingOptions {
  /** CANCEL_REASON_REQUIRED: a cancellation without a reason is refused. */
  cancelReasonRequired: boolean;
}

export class BillOperations {
  constructor(
    private readonly store: BillStore,
    private readonly refs: ReferenceData,
    private readonly catalogue: CatalogueClient,
    private readonly clock: ClinicClock,
    private readonly options: BillingOptions = { cancelReasonRequired: false },
  ) {}

  async create(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const caller = callerOf(ctx);
    const idempotency = idempotencyOf(ctx, caller, request.body);
    if (idempotency) {
      const replay = await this.replay(idempotency, ctx);
      if (replay) return replay;
    }
    const input = parseNewBill(request.body, caller); // rules 1-6
    requireBranch(ctx, input.store_id);
    const store = await this.refs.get('store', input.store_id); // rule 7
    if (store?.status !== 'active') throw notFound(BILLING_MESSAGES.storeNotFound);
    if (input.patient_id !== null && !(await this.refs.get('patient', input.patient_id))) {
      throw notFound(BILLING_MESSAGES.patientNotFound); // rule 8
    }
    const chargeIds = input.items.map((item) => item.charge_id);
    const invalid = await this.catalogue.unbillable(input.store_id, chargeIds, ctx); // rule 9
    if (invalid.length > 0) {
      throw badRequest(BILLING_MESSAGES.invalidCharges(input.store_id, invalid));
    }
    const totals = computeTotals(input.items, input.discount_type, input.discount_value); // rule 10
    const { doc, replayed } = await this.store.newBills.create(input, totals, {
      correlationId: ctx.correlationId,
      actor: caller,
      idempotency,
    }); // rules 11-12
    if (idempotency) {
      if (replayed && doc.request_hash !== idempotency.requestHash)
        throw unprocessable(BILLING_MESSAGES.idempotencyMismatch);
      if (!replayed) await this.store.claims.save(idempotency, doc.id);
    }
    if (!replayed) countBillCreated();
    return createdReply(doc);
  }

  /** The first answer again, for a request repeated with the same Idempotency-Key. */
  private async replay(idempotency: IdempotencyClaim, ctx: HandlerContext): Promise<ServiceReply | null> {
    const claim = await this.store.claims.find(idempotency.key);
    if (!claim) return null;
    if (claim.request_hash !== idempotency.requestHash) throw unprocessable(BILLING_MESSAGES.idempotencyMismatch);
    const doc = await this.store.queries.findById(claim.bill_id);
    if (doc) requireBranch(ctx, doc.store_id);
    return doc ? createdReply(doc) : null;
  }

  /** Kept, serialized, until the branch's bills or the users' names change. */
  async list(request: ServiceRequest, ctx: HandlerContext): Promise<EncodedReply> {
    const { filter, page } = parseListQuery(request.query);
    requireBranch(ctx, filter.store_id);
    return this.store.queries.cachedPage(
      filter,
      page,
      async (docs, total) => {
        const names = await this.userNames(docs);
        const bills = docs.map((doc) => billView(doc, this.clock, names.get(doc.billed_by ?? 0) ?? null));
        return new EncodedReply(success(200, { bills, ...pageFields(bills.length, total, page) }));
      },
      [USER_NAMES_SCOPE],
    );
  }

  async summary(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const query = parseSummaryQuery(request.query);
    requireBranch(ctx, query.store_id);
    return success(200, { summary: await this.store.queries.summary(query) });
  }

  async get(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', BILLING_MESSAGES.notFound);
    const doc = foundInBranch(ctx, await this.store.queries.findLive(id), BILLING_MESSAGES.notFound);
    const names = await this.userNames([doc]);
    return success(200, {
      bill: { ...billView(doc, this.clock, names.get(doc.billed_by ?? 0) ?? null), items: itemsView(doc) },
    });
  }

  async update(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', BILLING_MESSAGES.notFound);
    const changes = parseBillUpdate(request.body); // rules 1-4
    // Rule 5: a bill that does not exist (or is cancelled, or of another branch) is not found.
    await this.store.writes.update(id, { correlationId: ctx.correlationId, actor: callerOf(ctx) }, (existing) => {
      foundInBranch(ctx, existing, BILLING_MESSAGES.notFound);
      if (existing.status === 'cancelled') throw conflict(BILLING_MESSAGES.cancelledBill); // rule 6
      return changes; // rule 7
    });
    return success(200, { message: BILLING_MESSAGES.updated });
  }

  async cancel(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', BILLING_MESSAGES.notFound);
    const reason = parseCancelReason(request.body, this.options.cancelReasonRequired);
    await this.store.writes.cancel(
      id,
      reason,
      { correlationId: ctx.correlationId, actor: callerOf(ctx) },
      (existing) => {
        foundInBranch(ctx, existing, BILLING_MESSAGES.notFound);
        if (existing.status === 'cancelled') throw conflict(BILLING_MESSAGES.alreadyCancelled);
      },
    );
    return success(200, { message: BILLING_MESSAGES.cancelled });
  }

  /** A page of the changes of a bill, oldest first; a cancelled bill's too. */
  async history(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', BILLING_MESSAGES.notFound);
    const page = parsePage(request.query);
    const doc = foundInBranch(ctx, await this.store.queries.findById(id), BILLING_MESSAGES.notFound);
    const { entries, total } = await this.store.history.page(id, page);
    return success(200, {
      bill_id: doc.id,
      bill_number: doc.bill_number,
      history: entries,
      ...pageFields(entries.length, total, page),
    });
  }

  /**
   * A branch's bills of one date per cashier, its totals (the summary's
   * figures, from the same bills) and the bills of the date that were cancelled.
   */
  async dayEnd(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const { store_id, date } = parseDayEndQuery(request.query);
    requireBranch(ctx, store_id);
    const [groups, cancelledBills] = await Promise.all([
      this.store.queries.cashierGroups(store_id, date),
      this.store.queries.cancelledOn(store_id, date),
    ]);
    const [cancellations, names] = await Promise.all([
      this.store.history.latest(
        cancelledBills.map((b) => b.id),
        'cancelled',
      ),
      this.userNames(groups),
    ]);
    const totals = summarize(groups);
    const revenueOf = (status: string) =>
      fromCents(groups.filter((g) => g.payment_status === status).reduce((sum, g) => sum + g.grand_total, 0));
    return success(200, {
      report: {
        store_id,
        date,
        cashiers: cashiersOf(groups, names),
        totals: { ...totals, paid_revenue: revenueOf('Paid'), pending_revenue: revenueOf('Pending') },
        cancelled: {
          count: cancelledBills.length,
          grand_total: fromCents(cancelledBills.reduce((sum, b) => sum + b.grand_total_cents, 0)),
          bills: cancelledBills.map((bill) => {
            const entry = cancellations.get(bill.id);
            return {
              id: bill.id,
              bill_number: bill.bill_number,
              grand_total: fromCents(bill.grand_total_cents),
              billed_by: bill.billed_by,
              cancelled_at: this.clock.timestamp(entry?.at ?? bill.updated_at),
              cancelled_by: entry?.by ?? null,
              reason: entry?.reason ?? null,
            };
          }),
        },
      },
    });
  }

  /** The printable receipt of an active bill, as a PDF. */
  async receipt(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', BILLING_MESSAGES.notFound);
    const size = parseReceiptSize(request.query);
    const doc = foundInBranch(ctx, await this.store.queries.findLive(id), BILLING_MESSAGES.notFound);
    const [store, names] = await Promise.all([this.refs.get('store', doc.store_id), this.userNames([doc])]);
    const billedBy = doc.billed_by === null ? null : (names.get(doc.billed_by) ?? null);
    const pdf = await renderReceipt(
      {
        storeName: store?.name ?? `Branch ${doc.store_id}`,
        billNumber: doc.bill_number,
        billDate: doc.bill_date,
        patientName: doc.patient_name,
        patientContact: doc.patient_contact,
        items: itemsInOrder(doc).map((item) => ({
          name: item.charge_name,
          qty: item.qty,
          unitPrice: item.unit_price_cents,
          lineTotal: item.line_total_cents,
        })),
        subtotal: doc.subtotal_cents,
        discount: doc.discount_cents,
        discountRate: doc.discount_type === 'pct' && doc.discount_value > 0 ? `${doc.discount_value}%` : null,
        grandTotal: doc.grand_total_cents,
        paymentMethod: doc.payment_method,
        paymentStatus: doc.payment_status,
        cash: doc.payment_method === 'Cash' ? { received: doc.received_cents, balance: doc.balance_cents } : null,
        billedBy: billedBy ?? (doc.billed_by === null ? '-' : `User ${doc.billed_by}`),
        printedAt: this.clock.timestamp(new Date()) as string,
      },
      size,
    );
    const body: Omit<BinaryReplyBody, 'success'> = {
      content_type: 'application/pdf',
      filename: `${doc.bill_number}.pdf`,
      data_base64: pdf.toString('base64'),
    };
    return success(200, body);
  }

  private async userNames(docs: Array<{ billed_by: number | null }>): Promise<Map<number, string>> {
    const ids = docs.map((d) => d.billed_by).filter((id): id is number => id !== null);
    const users = await this.refs.many('user', ids);
    return new Map([...users].map(([id, user]) => [id, user.name]));
  }
}
