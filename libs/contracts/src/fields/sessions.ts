/** What a channeling session's fields may hold, and what the sessions service answers: stated once for the service and its schemas. */
import { Limits } from '../limits';
import { monthSchema } from '../schemas/common';
import { calendarDate, clockTime, either, FIELD_MESSAGES, fieldRule, integerFrom, positiveId } from './common';

export const SESSION_DISPLAY_STATUSES = ['Open', 'Closed', 'Full'] as const;
export const SESSION_STORED_STATUSES = ['active', 'cancelled', 'completed'] as const;
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export type SessionDisplayStatus = (typeof SESSION_DISPLAY_STATUSES)[number];
export type SessionStoredStatus = (typeof SESSION_STORED_STATUSES)[number];
export type Weekday = (typeof WEEKDAYS)[number];

/** Rules of the fields that the service checks one by one, in the spec's order. */
export const SESSION_FIELDS = {
  doctor_id: positiveId,
  store_id: positiveId,
  session_date: calendarDate,
  session_no: integerFrom(1, Limits.sessionNoMax),
  /** start_time and end_time. */
  time: clockTime,
  max_patients: fieldRule<number>({ type: 'integer', minimum: 1, maximum: Limits.maxPatientsMax }, (field) =>
    FIELD_MESSAGES.notPositiveId(field),
  ),
  /** A list filter, a date filter like `date`. */
  date: calendarDate,
  conflicts: either(['true', 'false'] as const),
  month: fieldRule<string>(monthSchema, (field) => `${field} must be in YYYY-MM format.`),
} as const;

/** `Open` when a session is created without a status: anything else is stored cancelled. */
export const NEW_SESSION_STATUS = 'Open' satisfies SessionDisplayStatus;

export const SESSIONS_MESSAGES = {
  body: FIELD_MESSAGES.bodyNotObject,
  noData: 'No data provided.',
  notFound: 'Session not found.',
  doctorNotFound: 'Doctor not found or inactive.',
  doctorNoBranch: 'Doctor is not assigned to a branch.',
  duplicate: 'A session for this doctor, branch, date and session number already exists.',
  noValidFields: 'No valid fields to update.',
  timeOrder: 'start_time must be earlier than end_time.',
  past: 'session_date cannot be in the past.',
  sessionDateNotText: 'session_date must be a non-empty string.',
  created: 'Session created successfully.',
  updated: 'Session updated successfully.',
  deleted: 'Session deleted successfully.',
  deleteRefusal: (activeAppointments: number) =>
    `Cannot delete this session: it has ${activeAppointments} active appointment(s). ` +
    'Cancel the appointment(s) first, or close the session instead.',
  noSchedules: (month: string) => `No doctor schedules found for ${month}.`,
  autoCreated: (count: number, month: string) => `Created ${count} session(s) for ${month}.`,
  noTimes: (doctor: string, date: string, sessionNo: number) =>
    `${doctor}, ${date} session ${sessionNo}: the schedule has no start or end time; skipped.`,
  notSaved: (doctor: string, date: string, sessionNo: number) =>
    `${doctor}, ${date} session ${sessionNo}: could not be saved; skipped.`,
} as const;
