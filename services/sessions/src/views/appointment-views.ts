/** How the API, the events and billing see an appointment. */
import { idOfAppointment } from '@clinic/contracts';
import { fromCents, type ClinicClock } from '@clinic/service-kit';
import { estimatedTime, paymentOf, type AppointmentDoc, type AppointmentMoney } from '../domain/appointments';
import type { SessionDoc } from '../domain/session';

/** An appointment without its money: what sessions knows (events, billing's questions). */
export function appointmentView(
  session: Pick<SessionDoc, 'id' | 'store_id' | 'doctor_id' | 'session_date' | 'start_time' | 'doctor_arrived_at'>,
  a: AppointmentDoc,
  minutesPerPatient: number,
  clock: ClinicClock,
): Record<string, unknown> {
  return {
    id: idOfAppointment(session.id, a.no),
    session_id: session.id,
    appointment_no: a.no,
    estimated_time: estimatedTime(session, a.no, minutesPerPatient),
    status: a.status,
    patient_name: a.patient_name,
    patient_contact: a.patient_contact,
    patient_nic: a.patient_nic,
    patient_id: a.patient_id,
    fee_level: a.fee_level,
    source: a.source,
    doctor_fee: fromCents(a.doctor_fee_cents),
    hospital_fee: fromCents(a.hospital_fee_cents),
    total_fee: fromCents(a.doctor_fee_cents + a.hospital_fee_cents),
    store_id: session.store_id,
    doctor_id: session.doctor_id,
    session_date: session.session_date,
    booked_by: a.booked_by,
    booked_at: clock.timestamp(a.booked_at),
    cancel_reason: a.cancel_reason,
    cancelled_at: clock.timestamp(a.cancelled_at),
  };
}

/** The money billing holds of it, as the API shows it beside the appointment (null: billing did not answer). */
export function paymentView(a: AppointmentDoc, money: AppointmentMoney | null): Record<string, unknown> | null {
  if (!money) return null;
  const p = paymentOf(a, money);
  return {
    total_fee: fromCents(p.total_cents),
    paid_amount: fromCents(p.paid_cents),
    refunded_amount: fromCents(p.refunded_cents),
    due_amount: fromCents(p.due_cents),
    refund_due: fromCents(p.refund_due_cents),
    payment_status: p.status,
  };
}
