/**
 * What a doctor is paid at the end of a completed session: a line
 * per appointment consulted, or absent when the doctor is paid for absent
 * patients; each earns the doctor's share the patient paid less what of it
 * was refunded (fee-shares.ts). Pure.
 */
import type { AppointmentStatus } from '@clinic/contracts';
import type { Cents } from '@clinic/service-kit';
import { sharesOf, type ShareFees } from './fee-shares';
import type { LedgerEntryDoc } from './ledger-entry';

/** What a settlement reads of an appointment (sessions') and of its account (billing's, absent: nothing paid). */
export interface SettledAppointment {
  id: number;
  appointment_no: number;
  patient_name: string;
  status: AppointmentStatus;
  doctor_fee_cents: Cents;
  account: { fees: ShareFees; ledger: readonly LedgerEntryDoc[] } | null;
}

export interface SettlementLine {
  appointment_id: number;
  appointment_no: number;
  patient_name: string;
  status: AppointmentStatus;
  doctor_fee_cents: Cents;
  doctor_paid_cents: Cents;
  doctor_refunded_cents: Cents;
  earned_cents: Cents;
}

/** Whether an appointment of the session earns its doctor anything. */
export function earnsTheDoctor(status: AppointmentStatus, paidForAbsent: boolean): boolean {
  return status === 'consulted' || (status === 'absent' && paidForAbsent);
}

/** The settlement's lines, in number order. */
export function settlementLines(appointments: readonly SettledAppointment[], paidForAbsent: boolean): SettlementLine[] {
  return appointments
    .filter((a) => earnsTheDoctor(a.status, paidForAbsent))
    .sort((a, b) => a.appointment_no - b.appointment_no)
    .map((a) => {
      const doctor = a.account ? sharesOf(a.account.fees, a.account.ledger).doctor : { paid: 0, refunded: 0 };
      return {
        appointment_id: a.id,
        appointment_no: a.appointment_no,
        patient_name: a.patient_name,
        status: a.status,
        doctor_fee_cents: a.account?.fees.doctor ?? a.doctor_fee_cents,
        doctor_paid_cents: doctor.paid,
        doctor_refunded_cents: doctor.refunded,
        earned_cents: Math.max(0, doctor.paid - doctor.refunded),
      };
    });
}

/** The doctor's payout: the sum of what the lines earn. */
export const payoutOf = (lines: readonly SettlementLine[]): Cents =>
  lines.reduce((sum, line) => sum + line.earned_cents, 0);
