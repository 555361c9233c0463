/**
 * A bill's payments and refunds through their own routes, and
 * its ledger. Each payment or refund is one compare-and-set write of the
 * bill (storage/bill-writes.ts), so that concurrent ones on any replica see
 * each other: a bill is never paid more than it is due, nor refunded more
 * than it holds.
 */
import { LEDGER_MESSAGES, success, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import {
  callerOf,
  type ClinicClock,
  fail,
  foundInBranch,
  type HandlerContext,
  idempotencyClaim,
  type IdempotencyClaim,
  pathId,
  reachesBranch,
  ServiceError,
} from '@clinic/service-kit';
import { refundChecks, type ApprovalCheck, type Controls } from '../domain/approvals';
import { optionalId } from '../domain/shift-input';
import { parsePayment, parseRefund } from '../domain/money-input';
import { heldByMethod, moneyOf, planEntry, planPayment, planRefund, type Mover } from '../domain/money-rules';
import { withApproval, type ApprovalOperations, type UsedApproval } from './approvals';
import type { CashOffice } from './cash-office';
import { ledgerOwner, type BillStorage } from '../storage';
import type { BillDoc } from '../domain/bill';
import type { LedgerEntryDoc } from '../domain/ledger-entry';
import type { BillViews } from '../views/bill-views';
import { balanceView, entryView } from '../views/bill-view';

export interface PaymentOptions {
  /** REFUND_ROLES: who may give money back (within the route's roles). */
  refundRoles: readonly string[];
}

/** What moves money besides the bill: its drawer, the clinic's controls, their approvals. */
export interface MoneyDesk {
  office: CashOffice;
  approvals: ApprovalOperations;
  controls: Controls;
}

/** A ledger entry of `doc` recorded under this Idempotency-Key; 422 when the key asked something else. */
function earlierEntry(doc: BillDoc, idempotency: IdempotencyClaim | null): LedgerEntryDoc | null {
  if (!idempotency) return null;
  const earlier = moneyOf(doc).ledger.find((e) => e.idempotency_key === idempotency.key);
  if (earlier && earlier.request_hash !== idempotency.requestHash) throw fail('IDEMPOTENCY_KEY_REUSED');
  return earlier ?? null;
}

export class PaymentOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly views: BillViews,
    private readonly clock: ClinicClock,
    private readonly options: PaymentOptions,
    private readonly desk: MoneyDesk,
  ) {}

  /** POST /lab_bills/{id}/payments: the collector is the caller, into their drawer. */
  pay(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const input = parsePayment(request.body);
    return this.record(request, ctx, 'payment', (existing, mover) => planPayment(existing, input, mover));
  }

  /** POST /lab_bills/{id}/refunds (REFUND_ROLES); with APPROVE_REFUND_TENDER, in another tender only if approved. */
  refund(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    if (!this.options.refundRoles.includes(callerOf(ctx).role)) throw fail('FORBIDDEN');
    const input = parseRefund(request.body);
    const checksOf = (bill: BillDoc) =>
      refundChecks(
        { owner: `bill ${bill.id}`, method: input.method },
        heldByMethod(bill).map(([method]) => method),
        this.desk.controls,
      );
    const controlled = this.desk.controls.refundTender ? checksOf : undefined;
    return this.record(request, ctx, 'refund', (existing, mover) => planRefund(existing, input, mover), controlled);
  }

  /** GET /lab_bills/{id}/payments: a bill's ledger, oldest first; a cancelled bill's too, its refunds with it. */
  async ledger(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const doc = foundInBranch(ctx, await this.storage.queries.findById(id), 'BILL_NOT_FOUND');
    return success(200, {
      bill_id: doc.id,
      bill_number: doc.bill_number,
      ...balanceView(doc),
      ledger: moneyOf(doc).ledger.map((entry) => entryView(entry, this.clock)),
    });
  }

  /**
   * Records the entry `plan` makes of the live bill, in the caller's drawer
   * (or the shift the body names), or answers the one an earlier request with
   * the same Idempotency-Key made (on this bill, even cancelled since).
   */
  private async record(
    request: ServiceRequest,
    ctx: HandlerContext,
    kind: 'payment' | 'refund',
    plan: (existing: BillDoc, mover: Mover) => LedgerEntryDoc,
    checksOf?: (bill: BillDoc) => ApprovalCheck[],
  ): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const caller = callerOf(ctx);
    const idempotency = idempotencyClaim(ctx.idempotencyKey, caller, { bill_id: id, kind, body: request.body });
    const keyed = idempotency ? { idempotency_key: idempotency.key, request_hash: idempotency.requestHash } : {};
    const shiftId = optionalId(request.body, 'shift_id');
    const { office } = this.desk;
    const staff = await office.staffOf(caller, true);
    const used = checksOf
      ? await this.approved(ctx, id, idempotency, checksOf, optionalId(request.body, 'approval_id'))
      : null;
    const cash = office.scope();
    let outcome: { doc: BillDoc; entry: LedgerEntryDoc };
    try {
      outcome = await withApproval(used, () =>
        cash.run(
          () =>
            this.storage.writes.record(id, { correlationId: ctx.correlationId, actor: caller }, async (existing) => {
              foundInBranch(ctx, existing, 'BILL_NOT_FOUND');
              const earlier = earlierEntry(existing, idempotency);
              if (earlier) return { replay: earlier };
              const drawer = await office.drawerFor(caller, staff, existing.store_id, shiftId);
              const entry = { ...plan(existing, office.mover(drawer)), ...keyed };
              const change = planEntry(existing, entry);
              const guard = cash.guard(drawer, [entry], ledgerOwner(existing._id));
              const details = used ? { approval: { id: used.approval.id, checks: used.approval.checks } } : undefined;
              return { entry, change: { ...change, cash: guard, details } };
            }),
          (result) => [result.entry.id],
        ),
      );
    } catch (err) {
      const cancelled = err instanceof ServiceError && err.status === 404 && idempotency;
      const found = cancelled ? await this.storage.queries.findById(id) : null;
      const doc = found && reachesBranch(ctx, found.store_id) ? found : null;
      const earlier = doc && earlierEntry(doc, idempotency);
      if (!doc || !earlier) throw err;
      outcome = { doc, entry: earlier };
    }
    const { doc, entry } = outcome;
    return success(201, {
      message: kind === 'payment' ? LEDGER_MESSAGES.paymentRecorded : LEDGER_MESSAGES.refundRecorded,
      [kind]: entryView(entry, this.clock),
      // The money is recorded: a failed read of a name must not answer otherwise.
      bill: await this.views.afterWrite(doc, ctx.log),
    });
  }

  /**
   * A refund a control refuses needs an approval, used before the write (the
   * bill read first for what it holds); none for a retry of a refund recorded.
   */
  private async approved(
    ctx: HandlerContext,
    id: number,
    idempotency: IdempotencyClaim | null,
    checksOf: (bill: BillDoc) => ApprovalCheck[],
    approvalId: number | null,
  ): Promise<UsedApproval | null> {
    const bill = await this.storage.queries.findLive(id);
    if (!bill || !reachesBranch(ctx, bill.store_id) || earlierEntry(bill, idempotency)) return null;
    return this.desk.approvals.pass(ctx, bill.store_id, checksOf(bill), approvalId, 'refund', String(bill.id));
  }
}
