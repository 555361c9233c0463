/** What a booking, a move or a cancellation of an appointment takes: checked against the contracts' schemas. */
import {
  appointmentUpdateBodySchema,
  bookingBodySchema,
  CHANNELING_FIELDS as C,
  FIELD_MESSAGES,
  reasonBodySchema,
  type AppointmentStatus,
  type BookingSource,
  type FeeLevel,
  appointmentKey,
  type ServiceRequest,
} from '@clinic/contracts';
import {
  fail,
  given,
  pathId,
  requireField,
  requireObject,
  requireShape,
  trimmedOrNull,
  type PlainObject,
} from '@clinic/service-kit';

export interface PatientDetails {
  patient_name: string;
  patient_contact: string;
  patient_nic: string | null;
  patient_id: number | null;
}

export interface BookingInput extends PatientDetails {
  fee_level: FeeLevel;
  source: BookingSource;
}

const body = (raw: unknown): PlainObject => requireObject(raw, FIELD_MESSAGES.bodyNotObject);

export function parseBooking(raw: unknown): BookingInput {
  const input = body(raw);
  requireField(input, 'patient_name');
  requireField(input, 'patient_contact');
  requireShape(bookingBodySchema, input);
  return {
    patient_name: String(input.patient_name).trim(),
    patient_contact: String(input.patient_contact).trim(),
    patient_nic: given(input, 'patient_nic') ? trimmedOrNull(input.patient_nic as string) : null,
    patient_id: (input.patient_id as number | null | undefined) ?? null,
    fee_level: (input.fee_level as FeeLevel | undefined) ?? (C.fee_level.default as FeeLevel),
    source: (input.source as BookingSource | undefined) ?? (C.source.default as BookingSource),
  };
}

export interface AppointmentChanges extends Partial<PatientDetails> {
  status?: Exclude<AppointmentStatus, 'cancelled'>;
}

export function parseAppointmentChanges(raw: unknown): AppointmentChanges {
  const input = body(raw);
  requireShape(appointmentUpdateBodySchema, input);
  const changes: AppointmentChanges = {};
  if (given(input, 'status')) changes.status = input.status as AppointmentChanges['status'];
  for (const field of ['patient_name', 'patient_contact'] as const)
    if (given(input, field)) changes[field] = String(input[field]).trim();
  if (field(input, 'patient_nic')) changes.patient_nic = trimmedOrNull((input.patient_nic as string | null) ?? null);
  if (field(input, 'patient_id')) changes.patient_id = (input.patient_id as number | null) ?? null;
  return changes;
}

/** Present, null included: null clears an optional detail. */
const field = (input: PlainObject, name: string): boolean => Object.hasOwn(input, name);

export function parseReason(raw: unknown): string {
  const input = body(raw);
  requireField(input, 'reason');
  requireShape(reasonBodySchema, input);
  return String(input.reason).trim();
}

/** The session and number an appointment's id names (404 APPOINTMENT_NOT_FOUND when it names none). */
export function appointmentKeyOf(request: ServiceRequest): { sessionId: number; no: number } {
  const key = appointmentKey(pathId(request, 'appointment_id', 'APPOINTMENT_NOT_FOUND'));
  if (!key) throw fail('APPOINTMENT_NOT_FOUND');
  return { sessionId: key.sessionId, no: key.appointmentNo };
}
