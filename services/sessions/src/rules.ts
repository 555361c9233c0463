/**
 * Channeling-session rules, in the spec's order. Pure functions: they take the
 * message as received and return normalised values or throw a ServiceError.
 * The monthly plan built from weekly schedules is in planning.ts.
 */
import {
  addSessionBodySchema,
  Limits,
  updateSessionBodySchema,
  type SessionDisplayStatus,
  type SessionStoredStatus,
} from '@clinic/contracts';
import {
  badRequest,
  given,
  has,
  isBlankString,
  isCalendarDate,
  isCalendarMonth,
  isClockTime,
  isInteger,
  isPlainObject,
  isPositiveId,
  queryId,
  queryText,
  schemaProblem,
  unprocessable,
  type PlainObject,
  type QueryParams,
} from '@clinic/service-kit';

export const MESSAGES = {
  noData: 'No data provided.',
  notFound: 'Session not found.',
  doctorNotFound: 'Doctor not found or inactive.',
  doctorNoBranch: 'Doctor is not assigned to a branch.',
  duplicate: 'A session for this doctor, branch, date and session number already exists.',
  noValidFields: 'No valid fields to update.',
  timeOrder: 'start_time must be earlier than end_time.',
  past: 'session_date cannot be in the past.',
  month: 'month must be in YYYY-MM format.',
  maxPatients: 'max_patients must be a positive integer.',
  conflicts: 'conflicts must be true or false.',
  created: 'Session created successfully.',
  updated: 'Session updated successfully.',
  deleted: 'Session deleted successfully.',
} as const;

export function deleteRefusal(activeAppointments: number): string {
  return (
    `Cannot delete this session: it has ${activeAppointments} active appointment(s). ` +
    'Cancel the appointment(s) first, or close the session instead.'
  );
}

/** The status shown on every read, derived from what is stored and what is booked. */
export function displayStatus(stored: SessionStoredStatus, maxPatients: number | null, booked: number): SessionDisplayStatus {
  if (stored === 'cancelled' || stored === 'completed') return 'Closed';
  if (maxPatients !== null && maxPatients > 0 && booked >= maxPatients) return 'Full';
  return 'Open';
}

/** Appointments count toward a session unless cancelled (however the booking system spells it). */
export function isActiveAppointment(status: string): boolean {
  return status.trim().toLowerCase() !== 'cancelled';
}

function shapeProblem(schema: Record<string, unknown>, body: PlainObject): void {
  const problem = schemaProblem(schema, body);
  if (problem) throw unprocessable(problem);
}

/** null, absent or empty: no cap; otherwise an integer >= 1. */
export function parseMaxPatients(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  if (!isInteger(value) || value < 1 || value > Limits.maxPatientsMax) throw unprocessable(MESSAGES.maxPatients);
  return value;
}

export interface NewSession {
  doctor_id: number;
  session_date: string;
  session_no: number;
  start_time: string;
  end_time: string;
  status: SessionStoredStatus;
  /** Checked after the doctor, as the spec orders it. */
  max_patients_input: unknown;
}

/** Rule 1 of add and update: a missing body, or one with nothing in it, is "no data" (400). */
export function requireSessionBody(raw: unknown): PlainObject {
  if (!isPlainObject(raw) || Object.keys(raw).length === 0) throw badRequest(MESSAGES.noData);
  return raw;
}

/** POST /add_session up to the doctor lookup. */
export function parseNewSession(raw: unknown, today: string): NewSession {
  const body = requireSessionBody(raw);
  for (const field of ['doctor_id', 'session_date', 'session_no', 'start_time', 'end_time']) {
    if (!given(body, field) || isBlankString(body[field])) throw unprocessable(`${field} is required.`);
  }
  if (!isPositiveId(body.doctor_id)) throw unprocessable('doctor_id must be a positive integer.');
  if (!isInteger(body.session_no) || body.session_no < 1 || body.session_no > Limits.sessionNoMax) {
    throw unprocessable(`session_no must be an integer from 1 to ${Limits.sessionNoMax}.`);
  }
  for (const field of ['start_time', 'end_time']) {
    if (!isClockTime(body[field])) throw unprocessable(`${field} must be a time in HH:MM format.`);
  }
  const startTime = body.start_time as string;
  const endTime = body.end_time as string;
  if (startTime >= endTime) throw unprocessable(MESSAGES.timeOrder);
  if (!isCalendarDate(body.session_date)) throw unprocessable('session_date must be a date in YYYY-MM-DD format.');
  if (body.session_date < today) throw unprocessable(MESSAGES.past);
  if (given(body, 'status') && typeof body.status !== 'string') throw unprocessable('status must be a string.');
  if (given(body, 'notes') && typeof body.notes !== 'string') throw unprocessable('notes must be a string.');
  // max_patients has its own place in the order; notes are accepted and ignored.
  shapeProblem(addSessionBodySchema, { ...body, max_patients: null });
  return {
    doctor_id: body.doctor_id,
    session_date: body.session_date,
    session_no: body.session_no,
    start_time: startTime,
    end_time: endTime,
    status: (body.status ?? 'Open') === 'Open' ? 'active' : 'cancelled',
    max_patients_input: body.max_patients,
  };
}

export interface SessionChanges {
  session_date?: string;
  start_time?: string;
  end_time?: string;
  max_patients?: number | null;
  status?: SessionStoredStatus;
}

/**
 * PUT /update_session, rules 3 to 5, against the stored session. The session
 * date is applied as given: the spec checks neither its format nor the past here.
 */
export function parseSessionChanges(body: PlainObject): SessionChanges {
  const changes: SessionChanges = {};
  for (const field of ['start_time', 'end_time'] as const) {
    if (!has(body, field)) continue;
    if (!isClockTime(body[field])) throw unprocessable(`${field} must be a time in HH:MM format.`);
    changes[field] = body[field] as string;
  }
  // The spec compares the two times only when both are given.
  if (changes.start_time !== undefined && changes.end_time !== undefined && changes.start_time >= changes.end_time) {
    throw unprocessable(MESSAGES.timeOrder);
  }
  if (has(body, 'max_patients')) changes.max_patients = parseMaxPatients(body.max_patients);
  if (has(body, 'session_date')) {
    if (typeof body.session_date !== 'string' || body.session_date.trim() === '') throw unprocessable('session_date must be a non-empty string.');
    changes.session_date = body.session_date.trim();
  }
  if (has(body, 'status')) {
    if (typeof body.status !== 'string') throw unprocessable('status must be a string.');
    changes.status = body.status === 'Closed' ? 'cancelled' : 'active';
  }
  if (Object.keys(changes).length === 0) throw badRequest(MESSAGES.noValidFields);
  if (given(body, 'notes') && typeof body.notes !== 'string') throw unprocessable('notes must be a string.');
  // Immutable fields are ignored, but must still be what they claim to be;
  // max_patients was checked above, by its own rule.
  const shaped: PlainObject = { ...body };
  if (has(shaped, 'max_patients')) shaped.max_patients = null;
  shapeProblem(updateSessionBodySchema, shaped);
  return changes;
}

export interface SessionListFilter {
  store_id?: number;
  doctor_id?: number;
  date?: string;
  status?: string;
  /** Only sessions on a leave or a holiday (beyond the spec). */
  conflicts?: true;
}

export function parseListQuery(query: QueryParams): SessionListFilter {
  const filter: SessionListFilter = {
    store_id: queryId(query, 'store_id', unprocessable),
    doctor_id: queryId(query, 'doctor_id', unprocessable),
    status: queryText(query, 'status', unprocessable, 20),
  };
  const date = queryText(query, 'date', unprocessable);
  if (date !== undefined) {
    if (!isCalendarDate(date)) throw unprocessable('date must be a date in YYYY-MM-DD format.');
    filter.date = date;
  }
  const conflicts = queryText(query, 'conflicts', unprocessable);
  if (conflicts !== undefined && conflicts !== 'true' && conflicts !== 'false') throw unprocessable(MESSAGES.conflicts);
  if (conflicts === 'true') filter.conflicts = true;
  return filter;
}

export interface ScheduleSelection {
  month: string;
  doctor_id?: number;
  store_id?: number;
}

function parseMonth(value: unknown, currentMonth: string): string {
  if (value === undefined || value === null || value === '') return currentMonth;
  if (!isCalendarMonth(value)) throw unprocessable(MESSAGES.month);
  return value;
}

export function parsePreviewQuery(query: QueryParams, currentMonth: string): ScheduleSelection {
  return {
    month: parseMonth(queryText(query, 'month', unprocessable), currentMonth),
    doctor_id: queryId(query, 'doctor_id', unprocessable),
    store_id: queryId(query, 'store_id', unprocessable),
  };
}

export function parseAutoCreateBody(raw: unknown, currentMonth: string): ScheduleSelection {
  if (raw === undefined) return { month: currentMonth };
  if (!isPlainObject(raw)) throw unprocessable('Request body must be a JSON object.');
  const selection: ScheduleSelection = { month: parseMonth(raw.month, currentMonth) };
  for (const field of ['doctor_id', 'store_id'] as const) {
    if (!given(raw, field)) continue;
    if (!isPositiveId(raw[field])) throw unprocessable(`${field} must be a positive integer.`);
    selection[field] = raw[field] as number;
  }
  return selection;
}
