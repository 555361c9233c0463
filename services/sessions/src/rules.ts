/**
 * Channeling-session rules, in the spec's order, and the monthly plan built
 * from weekly schedules. Pure functions.
 */
import {
  addSessionBodySchema,
  Limits,
  updateSessionBodySchema,
  WEEKDAYS,
  type DoctorRecord,
  type ScheduleEntry,
  type SessionDisplayStatus,
  type SessionStoredStatus,
  type Weekday,
} from '@clinic/contracts';
import {
  badRequest,
  daysInMonth,
  given,
  has,
  isBlankString,
  isCalendarDate,
  isCalendarMonth,
  isClockTime,
  isInteger,
  isPlainObject,
  isPositiveId,
  MONTH_NAMES,
  queryId,
  queryText,
  schemaProblem,
  unprocessable,
  weekdayOf,
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

/** `December 2026` */
export function monthLabel(month: string): string {
  const [year, number] = month.split('-');
  return `${MONTH_NAMES[Number(number) - 1]} ${year}`;
}

export function datesOfMonth(month: string): Array<{ date: string; day: Weekday }> {
  const [year, number] = month.split('-').map(Number);
  return Array.from({ length: daysInMonth(year, number) }, (_, i) => ({
    date: `${month}-${String(i + 1).padStart(2, '0')}`,
    day: WEEKDAYS[weekdayOf(year, number, i + 1)],
  }));
}

export interface PlannedSession {
  doctor: DoctorRecord;
  entry: ScheduleEntry;
  session_date: string;
  day: Weekday;
}

/** Doctors whose schedules take part: Active, with a branch, within the selection. */
export function schedulingDoctors(doctors: DoctorRecord[], selection: ScheduleSelection): DoctorRecord[] {
  return doctors.filter(
    (d) =>
      d.status === 'Active' &&
      d.store_id !== null &&
      d.schedule.length > 0 &&
      (selection.doctor_id === undefined || d.id === selection.doctor_id) &&
      (selection.store_id === undefined || d.store_id === selection.store_id),
  );
}

/** One planned session per schedule entry per date of the month on the entry's weekday. */
export function planMonth(doctors: DoctorRecord[], month: string): PlannedSession[] {
  const dates = datesOfMonth(month);
  const plan: PlannedSession[] = [];
  for (const doctor of doctors) {
    for (const entry of doctor.schedule) {
      for (const { date, day } of dates) if (day === entry.day) plan.push({ doctor, entry, session_date: date, day });
    }
  }
  return plan.sort(
    (a, b) => a.session_date.localeCompare(b.session_date) || a.doctor.id - b.doctor.id || a.entry.session_no - b.entry.session_no,
  );
}

export function hasTimes(p: PlannedSession): boolean {
  return Boolean(p.entry.start_time && p.entry.end_time);
}

/** Why a planned session cannot be created (rule 3), or null. */
export function unusableEntry(p: PlannedSession): string | null {
  return hasTimes(p) ? null : `${p.doctor.name}, ${p.session_date} session ${p.entry.session_no}: the schedule has no start or end time; skipped.`;
}

export interface RunOutcome<T> {
  created: T[];
  skipped: number;
  errors: string[];
}

/**
 * Rules 2 to 5 of auto-creation over a plan, and beyond the spec the dates
 * `blocked` by a leave or a holiday, skipped like past ones. `insertAll`
 * stores the sessions of the entries it is given, all at once, and answers
 * for each one: the session, 'exists' when the unique key already holds one,
 * or the Error of that one row. An error it throws fails the whole run.
 */
export async function executePlan<T>(
  plan: PlannedSession[],
  today: string,
  insertAll: (plans: PlannedSession[]) => Promise<Array<T | 'exists' | Error>>,
  blocked: (p: PlannedSession) => boolean = () => false,
): Promise<RunOutcome<T>> {
  const outcome: RunOutcome<T> = { created: [], skipped: 0, errors: [] };
  const insertable = plan.filter((p) => p.session_date >= today && !blocked(p) && unusableEntry(p) === null);
  const results = new Map(insertable.map((p, i) => [p, i]));
  const inserted = await insertAll(insertable);
  for (const p of plan) {
    // A past date, the doctor's leave or a holiday: skipped without a word.
    if (p.session_date < today || blocked(p)) {
      outcome.skipped++;
      continue;
    }
    const problem = unusableEntry(p);
    if (problem) {
      outcome.skipped++;
      outcome.errors.push(problem);
      continue;
    }
    const result = inserted[results.get(p) as number];
    if (result === 'exists') {
      outcome.skipped++;
    } else if (result instanceof Error) {
      outcome.skipped++;
      outcome.errors.push(`${p.doctor.name}, ${p.session_date} session ${p.entry.session_no}: could not be saved; skipped.`);
    } else {
      outcome.created.push(result);
    }
  }
  return outcome;
}
