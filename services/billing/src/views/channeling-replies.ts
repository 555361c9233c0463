/**
 * What sessions answers billing about a session and its appointments
 * (SessionsSubjects.channeling, .cancelAppointment), read into billing's
 * terms: amounts in cents. An answer of another shape is a fault (500), never
 * money moved on a guess. Pure.
 */
import { APPOINTMENT_STATUSES, type AppointmentStatus } from '@clinic/contracts';
import { toCents, type Cents } from '@clinic/service-kit';
import type { ShareFees } from '../domain/fee-shares';

export interface ChanneledSession {
  id: number;
  store_id: number;
  store_name: string | null;
  doctor_id: number;
  doctor_name: string | null;
  session_date: string;
  start_time: string;
  closed_as: 'cancelled' | 'completed' | null;
  paid_for_absent: boolean;
}

export interface ChanneledAppointment {
  id: number;
  session_id: number;
  appointment_no: number;
  estimated_time: string;
  status: AppointmentStatus;
  patient_name: string;
  store_id: number;
  doctor_id: number;
  session_date: string;
  fees: ShareFees;
  total_fee_cents: Cents;
  /** The appointment as sessions shows it (an answer that shows it passes it on). */
  view: Record<string, unknown>;
}

type Json = Record<string, unknown>;

function fault(what: string): never {
  throw new Error(`Unexpected channeling reply from sessions: ${what}`);
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function integer(o: Json, field: string): number {
  const value = o[field];
  return Number.isSafeInteger(value) ? (value as number) : fault(`${field} is not an integer`);
}

function text(o: Json, field: string): string {
  const value = o[field];
  return typeof value === 'string' ? value : fault(`${field} is not a text`);
}

const textOrNull = (o: Json, field: string): string | null => (o[field] === null ? null : text(o, field));

function cents(o: Json, field: string): Cents {
  const value = o[field];
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
    ? toCents(value)
    : fault(`${field} is not an amount`);
}

export function readSession(raw: unknown): ChanneledSession {
  if (!isObject(raw)) fault('session is not an object');
  const closedAs = raw.closed_as ?? null;
  if (closedAs !== null && closedAs !== 'cancelled' && closedAs !== 'completed') fault('closed_as');
  return {
    id: integer(raw, 'id'),
    store_id: integer(raw, 'store_id'),
    store_name: textOrNull(raw, 'store_name'),
    doctor_id: integer(raw, 'doctor_id'),
    doctor_name: textOrNull(raw, 'doctor_name'),
    session_date: text(raw, 'session_date'),
    start_time: text(raw, 'start_time'),
    closed_as: closedAs,
    paid_for_absent: raw.paid_for_absent === true,
  };
}

export function readAppointment(raw: unknown): ChanneledAppointment {
  if (!isObject(raw)) fault('appointment is not an object');
  const status = text(raw, 'status') as AppointmentStatus;
  if (!APPOINTMENT_STATUSES.includes(status)) fault(`status ${status}`);
  const fees = { doctor: cents(raw, 'doctor_fee'), hospital: cents(raw, 'hospital_fee') };
  const { payment: _billings, ...view } = raw;
  return {
    id: integer(raw, 'id'),
    session_id: integer(raw, 'session_id'),
    appointment_no: integer(raw, 'appointment_no'),
    estimated_time: text(raw, 'estimated_time'),
    status,
    patient_name: text(raw, 'patient_name'),
    store_id: integer(raw, 'store_id'),
    doctor_id: integer(raw, 'doctor_id'),
    session_date: text(raw, 'session_date'),
    fees,
    // The split is the fee: a total that says otherwise is sessions' fault, not a price to charge.
    total_fee_cents:
      cents(raw, 'total_fee') === fees.doctor + fees.hospital ? fees.doctor + fees.hospital : fault('total_fee'),
    view,
  };
}

/** `{session, appointments}`: the answer of SessionsSubjects.channeling. */
export function readChanneling(body: unknown): { session: ChanneledSession; appointments: ChanneledAppointment[] } {
  if (!isObject(body) || !Array.isArray(body.appointments)) fault('no appointments');
  return { session: readSession(body.session), appointments: body.appointments.map(readAppointment) };
}

/** `{appointment, already}`: the answer of SessionsSubjects.cancelAppointment. */
export function readCancelled(body: unknown): { appointment: ChanneledAppointment; already: boolean } {
  if (!isObject(body) || typeof body.already !== 'boolean') fault('no already');
  return { appointment: readAppointment(body.appointment), already: body.already };
}
