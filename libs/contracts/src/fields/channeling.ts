/** What a channeling appointment's fields may hold, and what the services answer about it: stated once. */
import { Limits } from '../limits';
import { clockTime, either, FIELD_MESSAGES, fieldRule, integerFrom, oneOf, positiveId } from './common';

export const APPOINTMENT_STATUSES = ['booked', 'arrived', 'consulted', 'absent', 'cancelled'] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];
/** The statuses a PUT may set; `cancelled` is DELETE's. */
export const APPOINTMENT_MOVES: Readonly<Record<AppointmentStatus, readonly AppointmentStatus[]>> = {
  booked: ['arrived', 'absent'],
  arrived: ['consulted', 'absent'],
  absent: ['arrived'],
  consulted: [],
  cancelled: [],
};
/** Appointments that hold a place in their session (booked_count, the cap). */
export const OPEN_APPOINTMENT_STATUSES: readonly AppointmentStatus[] = ['booked', 'arrived', 'consulted', 'absent'];

/** Hospital fee levels a branch may offer (its reference record's `channeling_fees`). */
export const FEE_LEVELS = ['local', 'foreign', 'staff'] as const;
export type FeeLevel = (typeof FEE_LEVELS)[number];
/** Who books: the counter, or an online agent (who takes the numbers a session reserves). */
export const BOOKING_SOURCES = ['counter', 'agent'] as const;
export type BookingSource = (typeof BOOKING_SOURCES)[number];

/** An appointment's shares of its fee, the two lines of its slip, ledger and settlement (its "items"). */
export const FEE_PARTS = { doctor: 1, hospital: 2 } as const;

export const CHANNELING_FIELDS = {
  patient_id: positiveId,
  fee_level: oneOf(FEE_LEVELS, 'local'),
  source: either(BOOKING_SOURCES, 'counter'),
  status: oneOf(APPOINTMENT_STATUSES.filter((s) => s !== 'cancelled')),
  minutes_per_patient: integerFrom(1, 240),
  reserved_numbers: integerFrom(0, Limits.appointmentsPerSessionMax),
  doctor_arrived_at: fieldRule<string | null>(
    { ...clockTime.schema, nullable: true },
    (field) => `${field} must be a time in HH:MM format, or null.`,
  ),
} as const;

export const CHANNELING_MESSAGES = {
  appointmentNotFound: 'Appointment not found.',
  sessionFull: 'Session is full.',
  agentNumbersTaken: 'Session has no number left for agents.',
  sessionClosed: 'Session is closed.',
  completedNoReopen: 'Session is completed: it cannot be reopened.',
  sessionPast: 'Session date has passed.',
  onLeave: 'Doctor is on leave on the session date.',
  holiday: (name: string) => `Session date is a holiday: ${name}.`,
  appointmentsMax: `A session holds at most ${Limits.appointmentsPerSessionMax} appointments.`,
  feeLevelNotOffered: (level: string) => `fee_level ${level} is not offered at this branch.`,
  badMove: (from: string, to: string) => `An appointment ${from} cannot become ${to}.`,
  cancelled: 'Appointment is cancelled.',
  reasonRequired: FIELD_MESSAGES.required('reason'),
  booked: 'Appointment booked successfully.',
  updated: 'Appointment updated successfully.',
  cancelledOk: 'Appointment cancelled successfully.',
  completed: 'Session completed successfully.',
  notCompleted: 'Session is not completed: complete it before its settlement.',
  alreadySettled: 'Session is already settled.',
  notSettled: 'Session is not settled.',
  settledNoRefund: 'Session is settled: an admin must reverse its settlement before a refund.',
  settled: 'Settlement recorded successfully.',
  settlementReversed: 'Settlement reversed successfully.',
  sessionsUnavailable: 'Channeling sessions could not be reached. Please retry.',
  billingUnavailable: 'Channeling payments could not be reached. Please retry.',
  sessionCancelled: 'Session cancelled.',
  doctorOnLeave: 'Doctor on leave.',
  noShow: 'Did not arrive before the session was completed.',
} as const;

export const idOfAppointment = (sessionId: number, appointmentNo: number): number =>
  sessionId * Limits.appointmentIdFactor + appointmentNo;
/** The session an appointment id belongs to, and its number; null for an id no appointment can have. */
export function appointmentKey(id: number): { sessionId: number; appointmentNo: number } | null {
  const appointmentNo = id % Limits.appointmentIdFactor;
  const sessionId = Math.floor(id / Limits.appointmentIdFactor);
  return appointmentNo >= 1 && sessionId >= 1 ? { sessionId, appointmentNo } : null;
}
