/**
 * Channeling-session rules, in the spec's order. Pure functions: they take the
 * message as received and return normalised values or throw a ServiceError.
 * What each field may hold, and the messages, are libs/contracts'
 * (fields/sessions.ts). The monthly plan built from weekly schedules is in
 * planning.ts.
 */
import {
  addSessionBodySchema,
  CHANNELING_FIELDS as C,
  FIELD_MESSAGES,
  Limits,
  NEW_SESSION_STATUS,
  SESSION_FIELDS as F,
  SESSIONS_MESSAGES,
  updateSessionBodySchema,
  type SessionDisplayStatus,
  type SessionStoredStatus,
} from '@clinic/contracts';
import {
  badRequest,
  fail,
  given,
  has,
  isPlainObject,
  optionalPage,
  queryId,
  queryText,
  requireField,
  requireShape,
  unprocessable,
  validField,
  type Page,
  type PlainObject,
  type QueryParams,
} from '@clinic/service-kit';

/** The status shown on every read, derived from what is stored and what is booked. */
export function displayStatus(
  stored: SessionStoredStatus,
  maxPatients: number | null,
  booked: number,
): SessionDisplayStatus {
  if (stored === 'cancelled' || stored === 'completed') return 'Closed';
  if (maxPatients !== null && maxPatients > 0 && booked >= maxPatients) return 'Full';
  return 'Open';
}

/** Appointments count toward a session unless cancelled (however the booking system spells it). */
export function isActiveAppointment(status: string): boolean {
  return status.trim().toLowerCase() !== 'cancelled';
}

/** null, absent or empty: no cap; otherwise an integer >= 1. */
export function parseMaxPatients(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  return validField(F.max_patients, value, 'max_patients', unprocessable);
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
  if (!isPlainObject(raw) || Object.keys(raw).length === 0) throw badRequest(SESSIONS_MESSAGES.noData);
  return raw;
}

/** POST /add_session up to the doctor lookup. */
export function parseNewSession(raw: unknown, today: string): NewSession {
  const body = requireSessionBody(raw);
  for (const field of ['doctor_id', 'session_date', 'session_no', 'start_time', 'end_time'])
    requireField(body, field, unprocessable);
  const doctorId = validField(F.doctor_id, body.doctor_id, 'doctor_id', unprocessable);
  const sessionNo = validField(F.session_no, body.session_no, 'session_no', unprocessable);
  const startTime = validField(F.time, body.start_time, 'start_time', unprocessable);
  const endTime = validField(F.time, body.end_time, 'end_time', unprocessable);
  if (startTime >= endTime) throw unprocessable(SESSIONS_MESSAGES.timeOrder, 'start_time');
  const sessionDate = validField(F.session_date, body.session_date, 'session_date', unprocessable);
  if (sessionDate < today) throw unprocessable(SESSIONS_MESSAGES.past, 'session_date');
  if (given(body, 'status') && typeof body.status !== 'string')
    throw unprocessable(FIELD_MESSAGES.notText('status'), 'status');
  if (given(body, 'notes') && typeof body.notes !== 'string')
    throw unprocessable(FIELD_MESSAGES.notText('notes'), 'notes');
  // max_patients has its own place in the order; notes are accepted and ignored.
  requireShape(addSessionBodySchema, { ...body, max_patients: null }, unprocessable);
  return {
    doctor_id: doctorId,
    session_date: sessionDate,
    session_no: sessionNo,
    start_time: startTime,
    end_time: endTime,
    status: (body.status ?? NEW_SESSION_STATUS) === NEW_SESSION_STATUS ? 'active' : 'cancelled',
    max_patients_input: body.max_patients,
  };
}

export interface SessionChanges {
  session_date?: string;
  start_time?: string;
  end_time?: string;
  max_patients?: number | null;
  status?: SessionStoredStatus;
  /** Channeling settings, beyond the spec. */
  minutes_per_patient?: number;
  reserved_numbers?: number;
  doctor_arrived_at?: string | null;
}

/**
 * PUT /update_session, rules 3 to 5, against the stored session. The session
 * date is applied as given: the spec checks neither its format nor the past here.
 */
export function parseSessionChanges(body: PlainObject): SessionChanges {
  const changes: SessionChanges = {};
  for (const field of ['start_time', 'end_time'] as const) {
    if (has(body, field)) changes[field] = validField(F.time, body[field], field, unprocessable);
  }
  // The spec compares the two times only when both are given.
  if (changes.start_time !== undefined && changes.end_time !== undefined && changes.start_time >= changes.end_time) {
    throw unprocessable(SESSIONS_MESSAGES.timeOrder, 'start_time');
  }
  if (has(body, 'max_patients')) changes.max_patients = parseMaxPatients(body.max_patients);
  if (has(body, 'session_date')) {
    if (typeof body.session_date !== 'string' || body.session_date.trim() === '')
      throw unprocessable(SESSIONS_MESSAGES.sessionDateNotText, 'session_date');
    changes.session_date = body.session_date.trim();
  }
  if (has(body, 'status')) {
    if (typeof body.status !== 'string') throw unprocessable(FIELD_MESSAGES.notText('status'), 'status');
    changes.status = body.status === 'Closed' ? 'cancelled' : 'active';
  }
  for (const field of ['minutes_per_patient', 'reserved_numbers'] as const)
    if (has(body, field)) changes[field] = validField(C[field], body[field], field, unprocessable);
  if (has(body, 'doctor_arrived_at'))
    changes.doctor_arrived_at = validField(
      C.doctor_arrived_at,
      body.doctor_arrived_at,
      'doctor_arrived_at',
      unprocessable,
    );
  if (Object.keys(changes).length === 0) throw badRequest(SESSIONS_MESSAGES.noValidFields);
  if (given(body, 'notes') && typeof body.notes !== 'string')
    throw unprocessable(FIELD_MESSAGES.notText('notes'), 'notes');
  // Immutable fields are ignored, but must still be what they claim to be;
  // max_patients was checked above, by its own rule.
  const shaped: PlainObject = { ...body };
  if (has(shaped, 'max_patients')) shaped.max_patients = null;
  requireShape(updateSessionBodySchema, shaped, unprocessable);
  return changes;
}

/**
 * The changes a stored session takes: `Closed` cancels an active session only (a completed one, shown `Closed`, stays
 * completed when a client sends back what it read), and a completed session is never reopened.
 */
export function changesFor(stored: SessionStoredStatus, changes: SessionChanges): SessionChanges {
  if (stored === 'completed' && changes.status === 'active') throw fail('SESSION_COMPLETED');
  if (changes.status !== 'cancelled' || stored === 'active') return changes;
  const { status: _unchanged, ...others } = changes;
  return others;
}

export interface SessionListFilter {
  store_id?: number;
  /** Without store_id, a token's branches (store_ids): only their sessions. */
  store_ids?: readonly number[];
  doctor_id?: number;
  date?: string;
  status?: string;
  /** Only sessions on a leave or a holiday (beyond the spec). */
  conflicts?: true;
  /** Beyond the spec: a page of the list; absent, the whole list. */
  page?: Page;
}

export function parseListQuery(query: QueryParams): SessionListFilter {
  const filter: SessionListFilter = {
    store_id: queryId(query, 'store_id', unprocessable),
    doctor_id: queryId(query, 'doctor_id', unprocessable),
    status: queryText(query, 'status', unprocessable, Limits.sessionStatusMaxLength),
  };
  const date = queryText(query, 'date', unprocessable);
  if (date !== undefined) filter.date = validField(F.date, date, 'date', unprocessable);
  const conflicts = queryText(query, 'conflicts', unprocessable);
  if (conflicts !== undefined && validField(F.conflicts, conflicts, 'conflicts', unprocessable) === 'true')
    filter.conflicts = true;
  // Refused as the list's other filters are (422).
  const page = optionalPage(query, unprocessable);
  if (page) filter.page = page;
  return filter;
}

export interface ScheduleSelection {
  month: string;
  doctor_id?: number;
  store_id?: number;
}

function parseMonth(value: unknown, currentMonth: string): string {
  if (value === undefined || value === null || value === '') return currentMonth;
  return validField(F.month, value, 'month', unprocessable);
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
  if (!isPlainObject(raw)) throw unprocessable(SESSIONS_MESSAGES.body);
  const selection: ScheduleSelection = { month: parseMonth(raw.month, currentMonth) };
  for (const field of ['doctor_id', 'store_id'] as const) {
    if (!given(raw, field)) continue;
    selection[field] = validField(F[field], raw[field], field, unprocessable);
  }
  return selection;
}
