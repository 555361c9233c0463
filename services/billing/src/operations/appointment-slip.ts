/**
 * GET /appointments/{id}/slip: the booking slip of an appointment, on an 80 mm roll. Every print is counted in
 * the appointment's history, and each after the first says DUPLICATE n.
 */
import type { ServiceReply, ServiceRequest } from '@clinic/contracts';
import { foundInBranch, pathId, type HandlerContext } from '@clinic/service-kit';
import { refOf } from './appointment-payments';
import { paymentStatusOf } from '../views/channeling-views';
import { feesOf } from '../domain/appointment-account';
import { letterheadOf } from '../domain/letterhead';
import { moneyOf } from '../domain/money-rules';
import { renderSlip } from '../views/paper/appointment-slip';
import type { PaperFonts } from '../views/paper/fonts';
import { pdfReply } from '../views/paper/pdf-reply';
import type { BillingReferences } from '../references';
import type { SessionsClient } from '../sessions-client';
import type { BillStorage } from '../storage';
import type { PaperDesk } from './paper-desk';

export class SlipOperations {
  constructor(
    private readonly storage: BillStorage,
    private readonly sessions: SessionsClient,
    private readonly refs: BillingReferences,
    private readonly desk: PaperDesk,
    private readonly fonts: PaperFonts,
  ) {}

  async appointmentSlip(request: ServiceRequest, ctx: HandlerContext): Promise<ServiceReply> {
    const id = pathId(request, 'appointment_id', 'APPOINTMENT_NOT_FOUND');
    const { session, appointment } = await this.sessions.appointment(id, ctx);
    foundInBranch(ctx, appointment, 'APPOINTMENT_NOT_FOUND');
    const [account, branch] = await Promise.all([
      this.storage.channeling.accounts.findById(id),
      this.refs.branch(appointment.store_id),
    ]);
    // The fee as the account was opened with it, once it took money; else as booked.
    const fees = account ? feesOf(account) : appointment.fees;
    const money = account ? moneyOf(account) : { paid: 0, held: 0 };
    const ref = refOf(appointment);
    const copy = await this.desk.printIn(this.storage.channeling.slipPrints, ctx, {
      entityId: appointment.id,
      paper: 'appointment_slip',
      subject: String(appointment.id),
      size: '80mm',
    });
    const pdf = await renderSlip(this.fonts, {
      letterhead: letterheadOf(
        branch ?? (session.store_name ? { name: session.store_name } : null),
        appointment.store_id,
      ),
      doctorName: session.doctor_name ?? `Doctor ${appointment.doctor_id}`,
      sessionDate: appointment.session_date,
      appointmentId: appointment.id,
      appointmentNo: appointment.appointment_no,
      estimatedTime: appointment.estimated_time,
      patientName: appointment.patient_name,
      doctorFee: fees.doctor,
      hospitalFee: fees.hospital,
      paid: money.paid,
      status: ref.cancelled ? 'Cancelled' : paymentStatusOf(fees.doctor + fees.hospital, money.paid, money.held),
      copy,
    });
    return pdfReply(`appointment-${appointment.id}.pdf`, pdf);
  }
}
