/** Lab-bill operations: the spec's steps in order, over the storage layer and the read models. */
import { BILLING_MESSAGES, LEDGER_MESSAGES, success, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import {
  branchesOf,
  callerOf,
  EncodedReply,
  fail,
  foundInBranch,
  fromCents,
  idempotencyClaim,
  given,
  pageFields,
  parsePage,
  pathId,
  requireBranch,
  requireCurrent,
  taggedReply,
  toCents,
  withNewTag,
  type ClinicClock,
  type HandlerContext,
  type IdempotencyClaim,
  type PlainObject,
} from '@clinic/service-kit';
import { billChecks } from '../domain/approvals';
import { optionalId } from '../domain/shift-input';
import { entriesOnCreate, planCancel, planUpdate, type Mover } from '../domain/money-rules';
import { withApproval, type UsedApproval } from './approvals';
import type { MoneyDesk } from './payments';
import { approvalRecord } from '../views/approval-view';
import { USER_NAMES_SCOPE, type BillingReferences } from '../references';
import { countBillCreated } from '../metrics';
import type { CatalogueClient } from '../catalogue-client';
import { docKey, ledgerOwner, type BillStorage } from '../storage';
import type { BillChange, BillDoc } from '../domain/bill';
import type { BillViews } from '../views/bill-views';
import { parseListQuery, parseSummaryQuery } from '../domain/filters';
import { computeTotals, parseBillUpdate, parseCancelReason, parseNewBill } from '../domain/rules';

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
  /** PRICE_OVERRIDE_ROLES: who may bill a charge at another price than the catalogue's. */
  priceOverrideRoles: readonly string[];
}

/** A write that moves a bill's money in a drawer: the history details of its approval, and its holds. */
const withApprovalDetails = (used: UsedApproval | null, clock: ClinicClock) =>
  used ? { approval: approvalRecord(used.approval, clock) } : {};

export class BillOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly refs: BillingReferences,
    private readonly views: BillViews,
    private readonly catalogue: CatalogueClient,
    private readonly clock: ClinicClock,
    private readonly options: BillingOptions,
    private readonly desk: MoneyDesk,
  ) {}

  async create(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const caller = callerOf(ctx);
    const idempotency = idempotencyClaim(ctx.idempotencyKey, caller, request.body);
    if (idempotency) {
      const replay = await this.replay(idempotency, ctx);
      if (replay) return replay;
    }
    const { office } = this.desk;
    const input = parseNewBill(request.body, caller); // rules 1-6
    // A caller whose token's subject maps to a staff user bills as them (billed_by's default).
    if (input.billed_by === null && !given(request.body as PlainObject, 'billed_by'))
      input.billed_by = (await office.staffOf(caller, false))?.user_id ?? null;
    requireBranch(ctx, input.store_id);
    const branch = await this.refs.branch(input.store_id); // rule 7
    if (branch?.status !== 'active') throw fail('STORE_NOT_FOUND');
    if (input.patient_id !== null && !(await this.refs.patient(input.patient_id))) {
      throw fail('PATIENT_NOT_FOUND'); // rule 8
    }
    const chargeIds = input.items.map((item) => item.charge_id);
    const { invalid, amounts } = await this.catalogue.check(input.store_id, chargeIds, ctx); // rule 9
    if (invalid.length > 0) {
      throw fail('BILL_CHARGES_INVALID', BILLING_MESSAGES.invalidCharges(input.store_id, invalid), 'items');
    }
    const overrides = input.items
      .filter((item) => item.unit_price_cents !== toCents(amounts.get(item.charge_id) ?? 0))
      .map((item) => ({
        charge_id: item.charge_id,
        catalogue_price: amounts.get(item.charge_id) ?? 0,
        unit_price: fromCents(item.unit_price_cents),
      }));
    if (overrides.length > 0 && !this.options.priceOverrideRoles.includes(caller.role))
      throw fail(
        'PRICE_OVERRIDE_FORBIDDEN',
        LEDGER_MESSAGES.priceOverride([...new Set(overrides.map((o) => o.charge_id))]),
        'items',
      );
    const totals = computeTotals(input.items, input.discount_type, input.discount_value); // rule 10
    const catalogue = new Map([...amounts].map(([chargeId, amount]) => [chargeId, toCents(amount)]));
    const checks = billChecks(input, totals, catalogue, this.clock.today(), this.desk.controls);
    // A bill created Paid records the payment of its total by the caller, today, into their drawer.
    const paid = input.payment_status === 'Paid' && totals.grand_total > 0;
    const drawer = paid ? await office.drawerOf(ctx, input.store_id, optionalId(request.body, 'shift_id')) : null;
    const id = checks.length > 0 || drawer?.shift ? await this.storage.newBills.newId() : undefined;
    const used = await this.desk.approvals.pass(
      ctx,
      input.store_id,
      checks,
      optionalId(request.body, 'approval_id'),
      'bill',
      String(id),
    );
    const entries = drawer
      ? entriesOnCreate({ ...input, grand_total_cents: totals.grand_total }, office.mover(drawer))
      : [];
    const cash = office.scope();
    const { doc, replayed } = await withApproval(used, () =>
      cash.run(
        () =>
          this.storage.newBills.create(input, totals, {
            correlationId: ctx.correlationId,
            actor: caller,
            idempotency,
            entries,
            id,
            cash: drawer ? cash.guard(drawer, entries, ledgerOwner(docKey(id ?? 0))) : undefined,
            details: {
              ...(overrides.length > 0 ? { price_overrides: overrides } : {}),
              ...withApprovalDetails(used, this.clock),
            },
          }),
        () => entries.map((e) => e.id),
      ),
    ); // rules 11-12, and 409 when the bill's day, or the day its payment moves on, is closed
    if (idempotency) {
      if (replayed && doc.request_hash !== idempotency.requestHash) throw fail('IDEMPOTENCY_KEY_REUSED');
      if (!replayed) await this.storage.claims.save(idempotency, doc.id);
    }
    if (replayed) await this.storage.markStale(doc);
    else countBillCreated();
    return createdReply(doc);
  }

  /**
   * The first answer again, for a request repeated with the same
   * Idempotency-Key, before any rule is checked: a retry of a bill that was
   * made must get it, whatever a rule would say now (its day closed since,
   * its store inactive, a price no longer allowed). The claim answers with
   * one read by _id; without it (its save failed, or the process died
   * between the insert and the save) the bill's own unique key does.
   */
  private async replay(idempotency: IdempotencyClaim, ctx: HandlerContext): Promise<ServiceReply | null> {
    const claim = await this.storage.claims.find(idempotency.key);
    if (claim && claim.request_hash !== idempotency.requestHash) throw fail('IDEMPOTENCY_KEY_REUSED');
    const doc = claim
      ? await this.storage.queries.findById(claim.bill_id)
      : await this.storage.claims.billOf(idempotency);
    if (!doc) return null;
    requireBranch(ctx, doc.store_id);
    if (doc.request_hash !== idempotency.requestHash) throw fail('IDEMPOTENCY_KEY_REUSED');
    await this.storage.markStale(doc);
    return createdReply(doc);
  }

  /** Kept, serialized, until the branch's bills or the users' names change. */
  async list(request: ServiceRequest, ctx: HandlerContext): Promise<EncodedReply> {
    const { filter, page } = parseListQuery(request.query);
    requireBranch(ctx, filter.store_id);
    return this.storage.queries.cachedPage(
      filter,
      page,
      async (docs, total) => {
        const bills = await this.views.rows(docs);
        return new EncodedReply(success(200, { bills, ...pageFields(bills.length, total, page) }));
      },
      [USER_NAMES_SCOPE],
      ctx.share,
    );
  }

  async summary(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const query = parseSummaryQuery(request.query);
    requireBranch(ctx, query.store_id);
    return success(200, { summary: await this.storage.queries.summary(query, ctx.share) });
  }

  async get(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    // Read after its branch's versions (docs/CACHE.md): the gateway may keep it until a write to the branch.
    const branches = branchesOf(ctx);
    const only = branches?.length === 1 ? (branches[0] ?? null) : null;
    const found = await this.storage.queries.findLiveStamped(id, only, [USER_NAMES_SCOPE]);
    const doc = foundInBranch(ctx, found.doc, 'BILL_NOT_FOUND');
    ctx.share(found.stamps);
    return taggedReply(await this.representation(doc));
  }

  /** A live bill as its read answers it: the body its ETag is the digest of. */
  private async representation(doc: BillDoc): Promise<ServiceReply> {
    return success(200, { bill: await this.views.whole(doc) });
  }

  /** If-Match, checked on the bill a change found, once it is live (conditional.ts). */
  private requireCurrent(ctx: HandlerContext, existing: BillDoc): Promise<void> {
    return requireCurrent(ctx.ifMatch, async () => (await this.representation(existing)).body);
  }

  async update(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const changes = parseBillUpdate(request.body); // rules 1-4
    const actor = callerOf(ctx);
    let written: BillDoc | null = null;
    await this.moving(ctx, request.body, async (money) => {
      // Rule 5: a bill that does not exist (or is cancelled, or of another branch) is not found.
      written = await this.storage.writes.update(id, { correlationId: ctx.correlationId, actor }, async (existing) => {
        foundInBranch(ctx, existing, 'BILL_NOT_FOUND');
        if (existing.status === 'cancelled') throw fail('BILL_CANCELLED'); // rule 6
        await this.requireCurrent(ctx, existing);
        const moves = (mover: Mover) => planUpdate(existing, changes, mover); // rule 7, and the money it moves
        return money(existing, moves);
      });
    });
    const reply = success(200, { message: BILLING_MESSAGES.updated });
    return written ? withNewTag(reply, await this.representation(written)) : reply;
  }

  async cancel(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const reason = parseCancelReason(request.body, this.options.cancelReasonRequired);
    const actor = callerOf(ctx);
    await this.moving(ctx, request.body, (money) =>
      this.storage.writes.cancel(id, reason, { correlationId: ctx.correlationId, actor }, async (existing) => {
        foundInBranch(ctx, existing, 'BILL_NOT_FOUND');
        if (existing.status === 'cancelled') throw fail('BILL_ALREADY_CANCELLED');
        await this.requireCurrent(ctx, existing);
        return money(existing, (mover) => planCancel(existing, reason, mover)); // what it holds goes back
      }),
    );
    return success(200, { message: BILLING_MESSAGES.cancelled });
  }

  /**
   * A change of a bill that may move its money (a PUT, a cancellation): a
   * change that moves none needs no drawer; one that does moves it in the
   * caller's drawer or the shift the body names (`shift_id`), its cash going
   * out held there first.
   */
  private async moving(
    ctx: HandlerContext,
    body: unknown,
    write: (money: (existing: BillDoc, plan: (mover: Mover) => BillChange) => Promise<BillChange>) => Promise<void>,
  ): Promise<void> {
    const { office } = this.desk;
    const caller = callerOf(ctx);
    const shiftId = optionalId(body, 'shift_id');
    const cash = office.scope();
    let landed: string[] = [];
    await cash.run(
      () =>
        write(async (existing, plan) => {
          // Planned once without a drawer: only a change that moves money needs one.
          const dry = plan(office.mover(office.draft(caller)));
          if (dry.entries.length === 0) return dry;
          const drawer = await office.drawerOf(ctx, existing.store_id, shiftId);
          const change = plan(office.mover(drawer));
          landed = change.entries.map((e) => e.id);
          return { ...change, cash: cash.guard(drawer, change.entries, ledgerOwner(existing._id)) };
        }),
      () => landed,
    );
  }

  /** A page of the changes of a bill, oldest first; a cancelled bill's too. */
  async history(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const page = parsePage(request.query);
    const doc = foundInBranch(ctx, await this.storage.queries.findById(id), 'BILL_NOT_FOUND');
    const { entries, total } = await this.storage.history.page(id, page);
    return success(200, {
      bill_id: doc.id,
      bill_number: doc.bill_number,
      history: entries,
      ...pageFields(entries.length, total, page),
    });
  }
}
