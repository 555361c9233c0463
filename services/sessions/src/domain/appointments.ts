/**
 * A session's appointments, as pure rules over the session as found: numbers
 * that never break (no duplicate, no gap from a refused booking, never past
 * the cap), estimated times, the fee split, and the moves of an appointment.
 * The appointments live on their session, so that one compare-and-set write
 * of it allocates a number and checks the cap at once.
 */
import {
  APPOINTMENT_MOVES,
  CHANNELING_MESSAGES,
  Limits,
  OPEN_APPOINTMENT_STATUSES,
  type AppointmentStatus,
  type BookingSource,
  type Caller,
  type FeeLevel,
  type SessionStoredStatus,
} from '@clinic/contracts';
import { badRequest, fail, type Cents } from '@clinic/service-kit';
import type { DayBlock } from './blocks';

/** Minutes per patient when neither the session nor its doctor says. */
export const DEFAULT_MINUTES_PER_PATIENT = 10;

export interface AppointmentDoc {
  no: number;
  status: AppointmentStatus;
  patient_name: string;
  patient_contact: string;
  patient_nic: string | null;
  patient_id: number | null;
  fee_level: FeeLevel;
  source: BookingSource;
  doctor_fee_cents: Cents;
  hospital_fee_cents: Cents;
  booked_by: Caller;
  booked_at: Date;
  cancel_reason: string | null;
  cancelled_at: Date | null;
  /** The caller-scoped Idempotency-Key of the booking, and its request's hash. */
  idempotency_key?: string;
  request_hash?: string;
}

/** What of a session the rules read. */
export interface SessionForBooking {
  status: SessionStoredStatus;
  session_date: string;
  start_time: string;
  max_patients: number | null;
  reserved_numbers?: number;
  appointments?: AppointmentDoc[];
}

export const isOpen = (a: Pick<AppointmentDoc, 'status'>): boolean => OPEN_APPOINTMENT_STATUSES.includes(a.status);
export const openCount = (appointments: readonly AppointmentDoc[] = []): number => appointments.filter(isOpen).length;

/** Refuses a booking into a session that is closed, past, or whose places are taken; else the number it gets. */
export function nextNumber(
  session: SessionForBooking,
  source: BookingSource,
  today: string,
  /** Appointments other systems publish for the session (reference data), open ones. */
  external: number,
): number {
  if (session.status !== 'active') throw fail('SESSION_CLOSED');
  if (session.session_date < today) throw fail('SESSION_PAST');
  const appointments = session.appointments ?? [];
  if (appointments.length >= Limits.appointmentsPerSessionMax)
    throw fail('SESSION_FULL', CHANNELING_MESSAGES.appointmentsMax);
  const cap = session.max_patients;
  const reserved = Math.min(session.reserved_numbers ?? 0, cap ?? Infinity);
  const open = appointments.filter(isOpen);
  const taken = new Set(appointments.map((a) => a.no));
  if (source === 'agent') {
    const agentOpen = open.filter((a) => a.no <= reserved).length;
    const free = Array.from({ length: reserved }, (_, i) => i + 1).find((no) => !taken.has(no));
    if (agentOpen >= reserved || free === undefined) throw fail('SESSION_FULL', CHANNELING_MESSAGES.agentNumbersTaken);
    if (cap !== null && open.length + external >= cap) throw fail('SESSION_FULL', CHANNELING_MESSAGES.sessionFull);
    return free;
  }
  // The counter's bookings leave the reserved numbers free, used or not.
  const counterOpen = open.filter((a) => a.no > reserved).length;
  if (cap !== null && (counterOpen + reserved >= cap || open.length + external >= cap))
    throw fail('SESSION_FULL', CHANNELING_MESSAGES.sessionFull);
  const highest = appointments.reduce((max, a) => Math.max(max, a.no), reserved);
  return Math.max(highest, reserved) + 1;
}

/** Refuses a booking on a day its doctor is on leave, or its branch (or every branch) keeps a holiday. */
export function checkDayOpen(block: DayBlock): void {
  if (block.on_leave) throw fail('DOCTOR_ON_LEAVE');
  if (block.holiday !== null) throw fail('SESSION_ON_HOLIDAY', CHANNELING_MESSAGES.holiday(block.holiday));
}

/** `HH:MM` plus minutes, within the day (a clock past midnight stops at 23:59). */
export function addMinutes(time: string, minutes: number): string {
  const [h, m] = time.split(':').map(Number) as [number, number];
  const total = Math.min(h * 60 + m + minutes, 23 * 60 + 59);
  return `${String(Math.floor(total / 60)).padStart(2, '0')}:${String(total % 60).padStart(2, '0')}`;
}

/** When number `no` should see the doctor: from the start, or the doctor's arrival if later, a slot per patient. */
export function estimatedTime(
  session: { start_time: string; doctor_arrived_at?: string | null },
  no: number,
  minutesPerPatient: number,
): string {
  const arrived = session.doctor_arrived_at;
  const from = arrived && arrived > session.start_time ? arrived : session.start_time;
  return addMinutes(from, (no - 1) * minutesPerPatient);
}

/** The fee of a booking: the doctor's channeling fee and the branch's hospital fee of the level. */
export function feeSplit(
  doctorFee: Cents,
  branchFees: Partial<Record<FeeLevel, Cents>> | undefined,
  level: FeeLevel,
): { doctor_fee_cents: Cents; hospital_fee_cents: Cents } {
  const offered = branchFees ?? { local: 0 };
  const hospital = offered[level];
  if (hospital === undefined)
    throw fail('FEE_LEVEL_NOT_OFFERED', CHANNELING_MESSAGES.feeLevelNotOffered(level), 'fee_level');
  return { doctor_fee_cents: doctorFee, hospital_fee_cents: hospital };
}

/** Refuses a move the appointment cannot make from where it is. */
export function checkMove(from: AppointmentStatus, to: AppointmentStatus): void {
  if (from === 'cancelled') throw fail('APPOINTMENT_MOVE_REFUSED', CHANNELING_MESSAGES.cancelled);
  if (from !== to && !APPOINTMENT_MOVES[from].includes(to))
    throw fail('APPOINTMENT_MOVE_REFUSED', CHANNELING_MESSAGES.badMove(from, to));
}

/** The session's appointments with one replaced. */
export function replaced(list: readonly AppointmentDoc[], next: AppointmentDoc): AppointmentDoc[] {
  return list.map((a) => (a.no === next.no ? next : a));
}

/** An appointment's money as billing reports it, shown beside the appointment. */
export interface AppointmentMoney {
  paid_cents: Cents;
  refunded_cents: Cents;
}

export type PaymentStatus = 'Unpaid' | 'Partly paid' | 'Paid' | 'Refunded';

export function paymentOf(
  a: Pick<AppointmentDoc, 'status' | 'doctor_fee_cents' | 'hospital_fee_cents'>,
  money: AppointmentMoney,
) {
  const total = a.doctor_fee_cents + a.hospital_fee_cents;
  const held = money.paid_cents - money.refunded_cents;
  const status: PaymentStatus =
    money.paid_cents === 0 ? 'Unpaid' : held <= 0 ? 'Refunded' : money.paid_cents >= total ? 'Paid' : 'Partly paid';
  return {
    total_cents: total,
    paid_cents: money.paid_cents,
    refunded_cents: money.refunded_cents,
    due_cents: a.status === 'cancelled' ? 0 : Math.max(0, total - money.paid_cents),
    refund_due_cents: a.status === 'cancelled' ? Math.max(0, held) : 0,
    status,
  };
}

/** A patient's details as booked or corrected: trimmed, blanks refused. */
export function requireText(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field} is required.`, field);
  return value.trim();
}

/** Cancels the appointments still waiting (booked, arrived) with `reason`: the new list, and those cancelled. */
export function cancelWaiting(
  session: Pick<SessionForBooking, 'appointments'>,
  reason: string,
  at = new Date(),
): { set: { appointments: AppointmentDoc[]; open_count: number }; cancelled: AppointmentDoc[] } {
  const cancelled: AppointmentDoc[] = [];
  const appointments = (session.appointments ?? []).map((a) => {
    if (a.status !== 'booked' && a.status !== 'arrived') return a;
    const next = { ...a, status: 'cancelled' as const, cancel_reason: reason, cancelled_at: at };
    cancelled.push(next);
    return next;
  });
  return { set: { appointments, open_count: openCount(appointments) }, cancelled };
}
