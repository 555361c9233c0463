/** How the API and the events show an appointment's money and a session's settlement (schemas/channeling.ts). */
import { fromCents, type Cents, type ClinicClock } from '@clinic/service-kit';
import { moneyOf } from '../domain/money-rules';
import type { AccountDoc } from '../domain/appointment-account';
import type { SettlementDoc } from '../domain/settlement';

/** What a view of an appointment's money needs of the appointment (sessions'). */
export interface AppointmentRef {
  id: number;
  session_id: number;
  store_id: number;
  total_fee_cents: Cents;
  cancelled: boolean;
}

export type AppointmentPaymentStatus = 'Unpaid' | 'Partly paid' | 'Paid' | 'Refunded';

export function paymentStatusOf(total: Cents, paid: Cents, held: Cents): AppointmentPaymentStatus {
  if (paid > 0 && held === 0) return 'Refunded';
  if (paid > 0 && paid >= total) return 'Paid';
  return paid > 0 ? 'Partly paid' : 'Unpaid';
}

/** The appointment's `payment` (appointmentPaymentSchema): its account's money, or none paid yet. */
export function paymentView(appointment: AppointmentRef, account: AccountDoc | null): Record<string, unknown> {
  const total = account?.grand_total_cents ?? appointment.total_fee_cents;
  const money = account ? moneyOf(account) : { paid: 0, refunded: 0, due: total, held: 0 };
  return {
    total_fee: fromCents(total),
    paid_amount: fromCents(money.paid),
    refunded_amount: fromCents(money.refunded),
    due_amount: fromCents(money.due),
    // A cancelled appointment owes the patient what it still holds.
    refund_due: fromCents(appointment.cancelled ? money.held : 0),
    payment_status: paymentStatusOf(total, money.paid, money.held),
  };
}

/** The money of an appointment after a payment or refund, as its answer and its event carry it. */
export function balanceView(appointment: AppointmentRef, account: AccountDoc | null): Record<string, unknown> {
  return {
    appointment_id: appointment.id,
    session_id: appointment.session_id,
    store_id: appointment.store_id,
    ...paymentView(appointment, account),
  };
}

/** A settlement as the API, its event and its history show it (settlementSchema). */
export function settlementView(doc: SettlementDoc, clock: ClinicClock): Record<string, unknown> {
  return {
    session_id: doc.session_id,
    store_id: doc.store_id,
    doctor_id: doc.doctor_id,
    doctor_name: doc.doctor_name,
    session_date: doc.session_date,
    status: doc.status,
    amount: fromCents(doc.amount_cents),
    method: doc.method,
    day: doc.day,
    paid_at: clock.timestamp(doc.paid_at),
    paid_by: doc.paid_by,
    lines: doc.lines.map((line) => ({
      appointment_id: line.appointment_id,
      appointment_no: line.appointment_no,
      patient_name: line.patient_name,
      status: line.status,
      doctor_fee: fromCents(line.doctor_fee_cents),
      doctor_paid: fromCents(line.doctor_paid_cents),
      doctor_refunded: fromCents(line.doctor_refunded_cents),
      earned: fromCents(line.earned_cents),
    })),
    reversal: doc.reversal
      ? { reason: doc.reversal.reason, at: clock.timestamp(doc.reversal.at), by: doc.reversal.by }
      : null,
  };
}
