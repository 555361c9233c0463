/**
 * DELETE /appointments/{id}: sessions cancels the appointment,
 * then billing gives back everything its account holds, one refund per
 * tender it was paid in, into the canceller's drawer (as a bill's
 * cancellation does). Two steps in two services: a retry after a failure
 * between them finds the appointment cancelled already (sessions answers
 * `already`) and finishes the refund; the refund gives back what the account
 * holds when it is written, so a second one finds nothing left, and an
 * Idempotency-Key's retry answers the refunds the first made. A caller
 * outside REFUND_ROLES may cancel only an appointment that holds nothing,
 * and nobody one whose session is settled: both refused before anything changes.
 */
import { CHANNELING_MESSAGES, success, type ServiceReply, type ServiceRequest } from '@clinic/contracts';
import {
  callerOf,
  type ClinicClock,
  fail,
  foundInBranch,
  type HandlerContext,
  idempotencyClaim,
  pathId,
} from '@clinic/service-kit';
import { earlierEntries, openingOf, refOf } from './appointment-payments';
import { parseReason } from '../domain/channeling-input';
import { balanceView, paymentView } from '../views/channeling-views';
import { entriesOnCancel, moneyOf } from '../domain/money-rules';
import type { PaymentOptions } from './payments';
import { optionalId } from '../domain/shift-input';
import type { CashOffice } from './cash-office';
import type { SessionsClient } from '../sessions-client';
import { APPOINTMENT_ACCOUNTS, ledgerOwner, type BillStorage } from '../storage';
import { entryView } from '../views/bill-view';

export class AppointmentCancelOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly sessions: SessionsClient,
    private readonly clock: ClinicClock,
    private readonly options: PaymentOptions,
    private readonly office: CashOffice,
  ) {}

  async appointmentCancel(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'appointment_id', 'APPOINTMENT_NOT_FOUND');
    const reason = parseReason(request.body);
    const caller = callerOf(ctx);
    const idempotency = idempotencyClaim(ctx.idempotencyKey, caller, {
      appointment_id: id,
      kind: 'cancel',
      body: request.body,
    });
    const keyed = idempotency ? { idempotency_key: idempotency.key, request_hash: idempotency.requestHash } : {};
    const { appointment } = await this.sessions.appointment(id, ctx);
    foundInBranch(ctx, appointment, 'APPOINTMENT_NOT_FOUND');
    const { accounts, accountWrites, settlements } = this.storage.channeling;
    const found = await accounts.findById(id);
    const givesBack = found !== null && moneyOf(found).held > 0 && earlierEntries(found, idempotency).length === 0;
    const mayRefund = this.options.refundRoles.includes(caller.role);
    if (givesBack && !mayRefund) throw fail('FORBIDDEN');
    if (givesBack) await settlements.assertRefundable(appointment.session_id);
    // What it holds goes back from a drawer: the caller's, or the shift the body names.
    const drawer = givesBack
      ? await this.office.drawerOf(ctx, appointment.store_id, optionalId(request.body, 'shift_id'))
      : null;

    const cancelled = await this.sessions.cancel(id, reason, ctx);
    const ref = refOf(cancelled.appointment);
    let account = found;
    let refunds = found ? earlierEntries(found, idempotency) : [];
    if (found) {
      const cash = this.office.scope();
      const outcome = await cash.run(
        () =>
          accountWrites.move(
            openingOf(appointment),
            { correlationId: ctx.correlationId, actor: caller },
            (existing) => {
              const earlier = earlierEntries(existing, idempotency);
              if (earlier.length > 0) return { replay: earlier };
              const mover = this.office.mover(drawer ?? this.office.draft(caller));
              const entries = entriesOnCancel(existing, reason, mover).map((e) => ({ ...e, ...keyed }));
              // Paid meanwhile (after the check above): only a refunder gives it back, from a drawer found for it.
              if (entries.length > 0 && !mayRefund) throw fail('FORBIDDEN');
              if (entries.length > 0 && !drawer) throw fail('RECORD_BUSY');
              const guard = drawer
                ? cash.guard(drawer, entries, ledgerOwner(existing._id, APPOINTMENT_ACCOUNTS))
                : undefined;
              return { entries, action: 'cancelled', reason, cash: guard };
            },
            (after) => balanceView(ref, after),
          ),
        (moved) => moved.entries.map((e) => e.id),
      );
      account = outcome.doc;
      refunds = outcome.entries;
    }
    return success(200, {
      message: CHANNELING_MESSAGES.cancelledOk,
      appointment: { ...cancelled.appointment.view, payment: paymentView(ref, account) },
      refunds: refunds.map((entry) => entryView(entry, this.clock)),
    });
  }
}
