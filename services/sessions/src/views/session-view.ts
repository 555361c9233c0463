/** How the API and the events show a session. */
import type { ClinicClock } from '@clinic/service-kit';
import { displayStatus } from '../domain/rules';
import { minutesPerPatient, type SessionDoc, type SessionJoin } from '../domain/session';

/** A session as the API and its events show it, its status derived. */
export function sessionView(doc: SessionDoc, join: SessionJoin, clock: ClinicClock): Record<string, unknown> {
  const { doctor, branchName } = join;
  // Appointments booked here count as those other systems publish do.
  const booked = join.booked + (doc.open_count ?? 0);
  return {
    id: doc.id,
    doctor_id: doc.doctor_id,
    store_id: doc.store_id,
    session_date: doc.session_date,
    start_time: doc.start_time,
    end_time: doc.end_time,
    max_patients: doc.max_patients,
    session_no: doc.session_no,
    status: displayStatus(doc.status, doc.max_patients, booked),
    created_at: clock.timestamp(doc.created_at),
    doctor_name: doctor?.name ?? null,
    reg_no: doctor?.reg_no ?? null,
    specialization: doctor?.specialization ?? null,
    channeling_fee: doctor?.channeling_fee ?? null,
    store_name: branchName,
    booked_count: booked,
    closed_as: doc.status === 'active' ? null : doc.status,
    minutes_per_patient: minutesPerPatient(doc, doctor),
    reserved_numbers: doc.reserved_numbers ?? 0,
    doctor_arrived_at: doc.doctor_arrived_at ?? null,
  };
}
