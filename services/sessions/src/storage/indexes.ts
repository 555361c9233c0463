/**
 * The indexes of the sessions database (index-catalogue.ts says which query
 * reads each: docs/indexes.md). Queries on the reference collections name
 * theirs (`hint`), so that MongoDB and the embedded server take the same plan.
 */
import type { IndexDescription } from 'mongodb';

export const SESSION_INDEXES = {
  /** One session per slot; also a doctor's sessions by date (the preview's `exists`). */
  slot: 'session_slot_unique',
  byStoreDate: 'sessions_by_store_date',
  byDoctorDate: 'sessions_by_doctor_date',
  byDate: 'sessions_by_date',
  byRun: 'sessions_by_run',
} as const;

export const LEAVES_BY_DOCTOR = 'leaves_by_doctor';
export const HOLIDAYS_BY_DATE = 'holidays_by_date';

export const SESSION_INDEX_DESCRIPTIONS: IndexDescription[] = [
  { key: { doctor_id: 1, store_id: 1, session_date: 1, session_no: 1 }, name: SESSION_INDEXES.slot, unique: true },
  { key: { store_id: 1, session_date: -1, start_time: 1 }, name: SESSION_INDEXES.byStoreDate },
  { key: { doctor_id: 1, session_date: -1, start_time: 1 }, name: SESSION_INDEXES.byDoctorDate },
  { key: { session_date: -1, start_time: 1 }, name: SESSION_INDEXES.byDate },
  { key: { run_id: 1 }, name: SESSION_INDEXES.byRun, sparse: true },
];

export const RUN_INDEX_DESCRIPTIONS: IndexDescription[] = [
  { key: { status: 1, started_at: 1 }, name: 'runs_by_status' },
  { key: { status: 1, finished_at: 1 }, name: 'runs_by_status_finished' },
];

export const APPOINTMENT_INDEX_DESCRIPTIONS: IndexDescription[] = [
  { key: { session_id: 1, deleted: 1 }, name: 'appointments_by_session_live' },
];
export const LEAVE_INDEX_DESCRIPTIONS: IndexDescription[] = [
  { key: { doctor_id: 1, from_date: 1 }, name: LEAVES_BY_DOCTOR },
];
export const HOLIDAY_INDEX_DESCRIPTIONS: IndexDescription[] = [{ key: { date: 1 }, name: HOLIDAYS_BY_DATE }];

/** Appointment indexes of earlier versions, which no query uses any more: dropped at start-up. */
export const OBSOLETE_APPOINTMENT_INDEXES = ['appointments_by_session'];
