/** A doctor's session in a branch, with its appointments, and the auto-creation runs that insert sessions. */
import type { DoctorRecord, SessionStoredStatus } from '@clinic/contracts';
import type { ClinicClock } from '@clinic/service-kit';
import { DEFAULT_MINUTES_PER_PATIENT, type AppointmentDoc } from './appointments';

export interface SessionDoc {
  _id: string;
  id: number;
  doctor_id: number;
  store_id: number;
  session_date: string;
  session_no: number;
  start_time: string;
  end_time: string;
  max_patients: number | null;
  status: SessionStoredStatus;
  created_at: Date;
  /** The auto-creation run that inserted it; hidden until that run completes. */
  run_id?: string;
  _event_ids: string[];
  /** Channeling: its appointments, numbered (domain/appointments.ts), and how many hold a place. */
  appointments?: AppointmentDoc[];
  open_count?: number;
  minutes_per_patient?: number;
  reserved_numbers?: number;
  doctor_arrived_at?: string | null;
}

export type NewSessionDoc = Omit<SessionDoc, '_id' | 'id' | 'created_at' | '_event_ids'>;

export type RunStatus = 'running' | 'completed' | 'failed' | 'rolled_back';

export interface RunDoc {
  _id: string;
  status: RunStatus;
  month: string;
  started_at: Date;
  finished_at: Date | null;
}

/** What a session read joins in: its doctor, its branch's name and its bookings. */
export interface SessionJoin {
  doctor: DoctorRecord | undefined;
  branchName: string | null;
  booked: number;
}

/** How a session is shown: storage keeps the shown sessions of its reads, views/ shapes them. */
export type ShowSession = (doc: SessionDoc, join: SessionJoin, clock: ClinicClock) => Record<string, unknown>;

/** The session's setting, else its doctor's, else the default. */
export function minutesPerPatient(
  doc: Pick<SessionDoc, 'minutes_per_patient'>,
  doctor: Pick<DoctorRecord, 'minutes_per_patient'> | undefined,
): number {
  return doc.minutes_per_patient ?? doctor?.minutes_per_patient ?? DEFAULT_MINUTES_PER_PATIENT;
}
