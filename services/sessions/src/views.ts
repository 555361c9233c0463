/** How the API and the events show a session. */
import type { DoctorRecord } from '@clinic/contracts';
import type { ClinicClock } from '@clinic/service-kit';
import { displayStatus } from './rules';
import type { SessionDoc } from './storage/documents';

/** What a session read joins in: its doctor, its branch's name and its bookings. */
export interface SessionJoin {
  doctor: DoctorRecord | undefined;
  branchName: string | null;
  booked: number;
}

/** A session as the API and its events show it, its status derived. */
export function sessionView(doc: SessionDoc, join: SessionJoin, clock: ClinicClock): Record<string, unknown> {
  const { doctor, branchName, booked } = join;
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
  };
}
