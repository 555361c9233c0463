/**
 * A bill's payments and refunds through their own routes (issue 25), and
 * its ledger. Each payment or refund is one compare-and-set write of the
 * bill (storage/bill-writes.ts), so that concurrent ones on any replica see
 * each other: a bill is never paid more than it is due, nor refunded more
 * than it holds.
 */
import { LEDGER_MESSAGES, success, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import {
  callerOf,
  fail,
  foundInBranch,
  idempotencyClaim,
  pathId,
  reachesBranch,
  ServiceError,
  type ClinicClock,
  type HandlerContext,
  type IdempotencyClaim,
} from '@clinic/service-kit';
import { parsePayment, parseRefund } from './money-input';
import { moneyOf, planEntry, planPayment, planRefund, type Mover } from './money-rules';
import { moverOf } from './requests';
import type { BillDoc, BillStorage, LedgerEntryDoc } from './storage';
import type { BillViews } from './bill-views';
import { balanceView, entryView } from './views';

export interface PaymentOptions {
  /** REFUND_ROLES: who may give money back (within the route's roles). */
  refundRoles: readonly string[];
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
  ) {}

  /** POST /lab_bills/{id}/payments: the collector is the caller. */
  pay(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const input = parsePayment(request.body);
    return this.record(request, ctx, 'payment', (existing, mover) => planPayment(existing, input, mover));
  }

  /** POST /lab_bills/{id}/refunds (REFUND_ROLES). */
  refund(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    if (!this.options.refundRoles.includes(callerOf(ctx).role)) throw fail('FORBIDDEN');
    const input = parseRefund(request.body);
    return this.record(request, ctx, 'refund', (existing, mover) => planRefund(existing, input, mover));
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
   * Records the entry `plan` makes of the live bill, or answers the one an
   * earlier request with the same Idempotency-Key made (on this bill, even
   * cancelled since).
   */
  private async record(
    request: ServiceRequest,
    ctx: HandlerContext,
    kind: 'payment' | 'refund',
    plan: (existing: BillDoc, mover: Mover) => LedgerEntryDoc,
  ): Promise<ServiceReply> {
    const id = pathId(request, 'bill_id', 'BILL_NOT_FOUND');
    const caller = callerOf(ctx);
    const idempotency = idempotencyClaim(ctx.idempotencyKey, caller, { bill_id: id, kind, body: request.body });
    const keyed = idempotency ? { idempotency_key: idempotency.key, request_hash: idempotency.requestHash } : {};
    let outcome: { doc: BillDoc; entry: LedgerEntryDoc };
    try {
      outcome = await this.storage.writes.record(
        id,
        { correlationId: ctx.correlationId, actor: caller },
        (existing) => {
          foundInBranch(ctx, existing, 'BILL_NOT_FOUND');
          const earlier = earlierEntry(existing, idempotency);
          if (earlier) return { replay: earlier };
          const entry = { ...plan(existing, moverOf(caller, this.clock)), ...keyed };
          return { entry, change: planEntry(existing, entry) };
        },
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
}
