/**
 * An appointment's payments and refunds: sessions keep the
 * appointment, so each route first asks sessions for it with the caller's
 * token (404 as sessions answers, branch scope included), then moves its
 * money on its account exactly as a bill's (payments.ts): the same rules,
 * drawer, closed days and Idempotency-Key replays. A refund of one share
 * gives back at most what that share holds.
 */
import {
  CHANNELING_MESSAGES,
  LEDGER_MESSAGES,
  success,
  type ServiceReply,
  type ServiceRequest,
} from '@clinic/contracts';
import {
  callerOf,
  type ClinicClock,
  fail,
  foundInBranch,
  fromCents,
  type HandlerContext,
  idempotencyClaim,
  type IdempotencyClaim,
  pathId,
  withinBranches,
} from '@clinic/service-kit';
import { parseBalances } from '../domain/channeling-input';
import type { ChanneledAppointment } from '../views/channeling-replies';
import { balanceView, type AppointmentRef } from '../views/channeling-views';
import { checkShareRefund } from '../domain/fee-shares';
import { parsePayment, parseRefund } from '../domain/money-input';
import { moneyOf, planPayment, planRefund, type Mover } from '../domain/money-rules';
import { optionalId } from '../domain/shift-input';
import type { CashOffice } from './cash-office';
import type { SessionsClient } from '../sessions-client';
import { APPOINTMENT_ACCOUNTS, ledgerOwner, type BillStorage } from '../storage';
import { feesOf, type AccountDoc, type AccountOpening } from '../domain/appointment-account';
import type { LedgerEntryDoc } from '../domain/ledger-entry';
import { entryView } from '../views/bill-view';
import type { PaymentOptions } from './payments';

/** The entries of `doc` recorded under this Idempotency-Key; 422 when the key asked something else. */
export function earlierEntries(doc: AccountDoc, idempotency: IdempotencyClaim | null): LedgerEntryDoc[] {
  if (!idempotency) return [];
  const earlier = doc.ledger.filter((e) => e.idempotency_key === idempotency.key);
  if (earlier.some((e) => e.request_hash !== idempotency.requestHash)) throw fail('IDEMPOTENCY_KEY_REUSED');
  return earlier;
}

/** What an account is opened with, and what its views need, of the appointment sessions answered. */
export const openingOf = (a: ChanneledAppointment): AccountOpening => ({
  id: a.id,
  session_id: a.session_id,
  store_id: a.store_id,
  doctor_id: a.doctor_id,
  session_date: a.session_date,
  fees: a.fees,
});

export const refOf = (a: ChanneledAppointment): AppointmentRef => ({
  id: a.id,
  session_id: a.session_id,
  store_id: a.store_id,
  total_fee_cents: a.total_fee_cents,
  cancelled: a.status === 'cancelled',
});

export class AppointmentPaymentOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly sessions: SessionsClient,
    private readonly clock: ClinicClock,
    private readonly options: PaymentOptions,
    private readonly office: CashOffice,
  ) {}

  /** POST /appointments/{id}/payments: the collector is the caller; a cancelled appointment takes nothing. */
  appointmentPay(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const input = parsePayment(request.body);
    return this.record(request, ctx, 'payment', (appointment, existing, mover) => {
      if (appointment.status === 'cancelled') throw fail('APPOINTMENT_MOVE_REFUSED', CHANNELING_MESSAGES.cancelled);
      return planPayment(existing, input, mover);
    });
  }

  /** POST /appointments/{id}/refunds (REFUND_ROLES): item 1 is the doctor's share, 2 the hospital's. */
  appointmentRefund(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    if (!this.options.refundRoles.includes(callerOf(ctx).role)) throw fail('FORBIDDEN');
    const input = parseRefund(request.body);
    return this.record(request, ctx, 'refund', (_appointment, existing, mover) => {
      const entry = planRefund(existing, input, mover);
      checkShareRefund(feesOf(existing), existing.ledger, entry);
      return entry;
    });
  }

  /** GET /appointments/{id}/payments: the account's ledger, oldest first, and its balance. */
  async appointmentPayments(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'appointment_id', 'APPOINTMENT_NOT_FOUND');
    const { appointment } = await this.sessions.appointment(id, ctx);
    foundInBranch(ctx, appointment, 'APPOINTMENT_NOT_FOUND');
    const account = await this.storage.channeling.accounts.findById(id);
    return success(200, {
      appointment: balanceView(refOf(appointment), account),
      ledger: (account?.ledger ?? []).map((entry) => entryView(entry, this.clock)),
    });
  }

  /** billing.appointment.balances (asked by sessions): what each appointment took and gave back. */
  async appointmentBalances(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const ids = parseBalances(request.body);
    const accounts = withinBranches(ctx, [...(await this.storage.channeling.accounts.findMany(ids)).values()]);
    const byId = new Map(accounts.map((account) => [account.id, moneyOf(account)]));
    const balances = Object.fromEntries(
      ids.map((id) => {
        const money = byId.get(id);
        return [
          String(id),
          { paid_amount: fromCents(money?.paid ?? 0), refunded_amount: fromCents(money?.refunded ?? 0) },
        ];
      }),
    );
    return success(200, { balances });
  }

  /**
   * Records the entry `plan` makes on the appointment's account (opened by
   * its first payment) in the caller's drawer (or the shift the body names),
   * or answers the one an earlier request with the same Idempotency-Key made.
   */
  private async record(
    request: ServiceRequest,
    ctx: HandlerContext,
    kind: 'payment' | 'refund',
    plan: (appointment: ChanneledAppointment, existing: AccountDoc, mover: Mover) => LedgerEntryDoc,
  ): Promise<ServiceReply> {
    const id = pathId(request, 'appointment_id', 'APPOINTMENT_NOT_FOUND');
    const caller = callerOf(ctx);
    const idempotency = idempotencyClaim(ctx.idempotencyKey, caller, { appointment_id: id, kind, body: request.body });
    const keyed = idempotency ? { idempotency_key: idempotency.key, request_hash: idempotency.requestHash } : {};
    const { appointment } = await this.sessions.appointment(id, ctx);
    foundInBranch(ctx, appointment, 'APPOINTMENT_NOT_FOUND');
    const ref = refOf(appointment);
    // A retry answers what its first request recorded, whatever its drawer is now.
    const found = idempotency ? await this.storage.channeling.accounts.findById(id) : null;
    const replay = found !== null && earlierEntries(found, idempotency).length > 0;
    const drawer = replay
      ? this.office.draft(caller)
      : await this.office.drawerOf(ctx, appointment.store_id, optionalId(request.body, 'shift_id'));
    const cash = this.office.scope();
    const outcome = await cash.run(
      () =>
        this.storage.channeling.accountWrites.move(
          openingOf(appointment),
          { correlationId: ctx.correlationId, actor: caller },
          (existing) => {
            const earlier = earlierEntries(existing, idempotency);
            if (earlier.length > 0) return { replay: earlier };
            const entry = { ...plan(appointment, existing, this.office.mover(drawer)), ...keyed };
            const proof = ledgerOwner(existing._id, APPOINTMENT_ACCOUNTS);
            return { entries: [entry], action: kind, cash: cash.guard(drawer, [entry], proof) };
          },
          (after) => balanceView(ref, after),
        ),
      (moved) => moved.entries.map((e) => e.id),
    );
    return success(201, {
      message: kind === 'payment' ? LEDGER_MESSAGES.paymentRecorded : LEDGER_MESSAGES.refundRecorded,
      [kind]: entryView(outcome.entries[0]!, this.clock),
      appointment: balanceView(ref, outcome.doc),
    });
  }
}
