/**
 * A session's settlement: the doctor paid their share of a
 * completed session, out of the payer's drawer; read as JSON or printed on
 * A4; reversed by an admin with a reason, the payout back into the
 * reverser's drawer. One settlement per session at a time
 * (storage/settlements.ts: marked first, so that no refund of its
 * appointments lands after the payout was counted).
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
import { feesOf } from '../domain/appointment-account';
import { parseFormat, parseReason, parseSettlement } from '../domain/channeling-input';
import { settlementView } from '../views/channeling-views';
import type { PaperFonts } from '../views/paper/fonts';
import { pdfReply } from '../views/paper/pdf-reply';
import { renderSettlement } from '../views/paper/settlement-sheet';
import type { PaymentOptions } from './payments';
import { optionalId } from '../domain/shift-input';
import type { CashOffice } from './cash-office';
import type { PaperDesk } from './paper-desk';
import type { SessionsClient } from '../sessions-client';
import { payoutOf, settlementLines } from '../domain/settlement-rules';
import { settlementOwner, type BillStorage } from '../storage';
import type { SettlementDoc } from '../domain/settlement';

/** How long a settlement waits for the refunds of its session still in flight before it answers "retry". */
const REFUNDS_WAIT_MS = 3_000;

export class SettlementOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly sessions: SessionsClient,
    private readonly clock: ClinicClock,
    private readonly fonts: PaperFonts,
    private readonly options: PaymentOptions,
    private readonly office: CashOffice,
    private readonly desk: PaperDesk,
  ) {}

  private readonly view = (doc: SettlementDoc) => settlementView(doc, this.clock);

  /** POST /sessions/{id}/settlement (REFUND_ROLES): the doctor's payout, in cash unless the body says otherwise. */
  async settle(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const caller = callerOf(ctx);
    if (!this.options.refundRoles.includes(caller.role)) throw fail('FORBIDDEN');
    const sessionId = pathId(request, 'session_id', 'SESSION_NOT_FOUND');
    const method = parseSettlement(request.body);
    const idempotency = idempotencyClaim(ctx.idempotencyKey, caller, {
      session_id: sessionId,
      kind: 'settle',
      body: request.body ?? null,
    });
    const { session, appointments } = await this.sessions.session(sessionId, ctx);
    foundInBranch(ctx, session, 'SESSION_NOT_FOUND');
    const { settlements, accounts } = this.storage.channeling;
    if (idempotency) {
      const found = await settlements.find(sessionId);
      const earlier = [found?.current, ...(found?.reversed ?? [])].find((s) => s?.idempotency_key === idempotency.key);
      if (earlier && earlier.request_hash !== idempotency.requestHash) throw fail('IDEMPOTENCY_KEY_REUSED');
      if (earlier) return success(201, { message: CHANNELING_MESSAGES.settled, settlement: this.view(earlier) });
    }
    if (session.closed_as !== 'completed') throw fail('SESSION_NOT_COMPLETED');
    const drawer = await this.office.drawerOf(ctx, session.store_id, optionalId(request.body, 'shift_id'));

    const marked = await settlements.mark(sessionId, session.store_id);
    const cash = this.office.scope();
    try {
      if (!(await settlements.settled(sessionId, REFUNDS_WAIT_MS))) throw fail('RECORD_BUSY');
      const held = await accounts.findMany(appointments.map((a) => a.id));
      const lines = settlementLines(
        appointments.map((a) => {
          const account = held.get(a.id);
          return {
            id: a.id,
            appointment_no: a.appointment_no,
            patient_name: a.patient_name,
            status: a.status,
            doctor_fee_cents: a.fees.doctor,
            account: account ? { fees: feesOf(account), ledger: account.ledger } : null,
          };
        }),
        session.paid_for_absent,
      );
      const mover = this.office.mover(drawer);
      const settlement: SettlementDoc = {
        id: mover.newId(),
        session_id: session.id,
        store_id: session.store_id,
        doctor_id: session.doctor_id,
        doctor_name: session.doctor_name,
        session_date: session.session_date,
        status: 'paid',
        amount_cents: payoutOf(lines),
        method,
        day: mover.day,
        paid_at: mover.at,
        paid_by: { sub: caller.sub, role: caller.role },
        lines,
        reversal: null,
        drawer: drawer.ref,
        ...(idempotency ? { idempotency_key: idempotency.key, request_hash: idempotency.requestHash } : {}),
      };
      const payout = { id: settlement.id, kind: 'payout' as const, method, amount_cents: settlement.amount_cents };
      await cash.run(
        () =>
          settlements.pay(
            marked,
            settlement,
            { actor: caller, correlationId: ctx.correlationId },
            this.view,
            cash.guard(drawer, settlement.amount_cents > 0 ? [payout] : [], settlementOwner(sessionId)),
          ),
        () => [settlement.id],
      );
      return success(201, { message: CHANNELING_MESSAGES.settled, settlement: this.view(settlement) });
    } catch (err) {
      // Given up: refunds of the session go on (unless the settlement landed after all).
      await settlements.unmark(marked).catch((unmarkErr: unknown) => {
        ctx.log.warn({ err: unmarkErr, session_id: sessionId }, 'session left settling after a failed settlement');
      });
      throw err;
    }
  }

  /** GET /sessions/{id}/settlement: the settlement in force, as JSON or on A4 (`format=pdf`). */
  async settlement(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const sessionId = pathId(request, 'session_id', 'SETTLEMENT_NOT_FOUND');
    const format = parseFormat(request.query);
    const found = await this.storage.channeling.settlements.find(sessionId);
    const doc = foundInBranch(ctx, found?.state === 'paid' ? found.current : null, 'SETTLEMENT_NOT_FOUND');
    if (format === 'json') return success(200, { settlement: this.view(doc) });
    const [letterhead, nameOf] = await Promise.all([
      this.desk.letterhead(doc.store_id),
      this.desk.namer([doc.paid_by.sub]),
    ]);
    const copy = await this.desk.printIn(this.storage.channeling.sheetPrints, ctx, {
      entityId: doc.session_id,
      paper: 'settlement_sheet',
      subject: doc.id,
      size: 'a4',
    });
    const pdf = await renderSettlement(this.fonts, {
      letterhead,
      doctorName: doc.doctor_name ?? `Doctor ${doc.doctor_id}`,
      sessionId: doc.session_id,
      sessionDate: doc.session_date,
      method: doc.method,
      paidAt: this.clock.timestamp(doc.paid_at) as string,
      paidBy: nameOf(doc.paid_by.sub),
      amount: doc.amount_cents,
      lines: doc.lines.map((line) => ({
        appointmentNo: line.appointment_no,
        patientName: line.patient_name,
        status: line.status,
        doctorFee: line.doctor_fee_cents,
        doctorPaid: line.doctor_paid_cents,
        doctorRefunded: line.doctor_refunded_cents,
        earned: line.earned_cents,
      })),
      reversal: null,
      copy,
    });
    return pdfReply(`settlement-${doc.session_id}.pdf`, pdf);
  }

  /** DELETE /sessions/{id}/settlement (admin, with a reason): a new settlement may follow. */
  async reverseSettlement(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const caller = callerOf(ctx);
    const sessionId = pathId(request, 'session_id', 'SETTLEMENT_NOT_FOUND');
    const reason = parseReason(request.body);
    const { settlements } = this.storage.channeling;
    const found = await settlements.find(sessionId);
    const paid = foundInBranch(ctx, found?.state === 'paid' ? found : null, 'SETTLEMENT_NOT_FOUND');
    // The payout comes back into the reverser's drawer (or the shift the body names).
    const drawer = await this.office.drawerOf(ctx, paid.store_id, optionalId(request.body, 'shift_id'));
    const mover = this.office.mover(drawer);
    const reversed = await settlements.reverse(
      sessionId,
      { reason, at: mover.at, by: { sub: caller.sub, role: caller.role }, day: mover.day, drawer: drawer.ref },
      { actor: caller, correlationId: ctx.correlationId },
      this.view,
      this.office.guardOf(drawer, [], settlementOwner(sessionId)),
    );
    return success(200, { message: CHANNELING_MESSAGES.settlementReversed, settlement: this.view(reversed) });
  }
}
