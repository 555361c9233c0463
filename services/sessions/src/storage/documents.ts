/** How a session and an auto-creation run are stored (the API's view of a session is views.ts). */
import type { SessionStoredStatus } from '@clinic/contracts';
import type { AppointmentDoc } from '../domain/appointments';
import { docKey } from './database-quirks';

export const SESSIONS = 'sessions';
/** Auto-creation runs: a run's sessions are hidden until it completes. */
export const RUNS = 'auto_create_runs';
/** Cache scope of everything a session read shows: sessions, runs, and the doctors, stores and appointments joined in. */
export const SESSIONS_SCOPE = 'sessions';

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

export function sessionDoc(id: number, fields: NewSessionDoc): SessionDoc {
  return { _id: docKey(id), id, ...fields, created_at: new Date(), _event_ids: [] };
}

/** A doctor's slot on a date, for the preview's `exists`. */
export function slotKey(doctorId: number, sessionDate: string, sessionNo: number): string {
  return `${doctorId}:${sessionDate}:${sessionNo}`;
}

/** The unique slot of a session: doctor, branch, date and number (session_slot_unique). */
export function heldSlotKey(s: Pick<SessionDoc, 'doctor_id' | 'store_id' | 'session_date' | 'session_no'>): string {
  return `${s.doctor_id}:${s.store_id}:${s.session_date}:${s.session_no}`;
}
