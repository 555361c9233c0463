/** How sessions and auto-creation runs are stored: their collections, keys and cache scope (the model is domain/session.ts). */
import type { NewSessionDoc, SessionDoc } from '../domain/session';
import { docKey } from './database-quirks';

export const SESSIONS = 'sessions';
/** Auto-creation runs: a run's sessions are hidden until it completes. */
export const RUNS = 'auto_create_runs';
/** Cache scope of everything a session read shows: sessions, runs, and the doctors, stores and appointments joined in. */
export const SESSIONS_SCOPE = 'sessions';

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
