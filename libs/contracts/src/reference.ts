/**
 * Reference records owned by other hospital systems. Each message on
 * `hospital.ref.<kind>` is one whole record to upsert, or a deletion marker.
 * Fields beyond these are allowed and ignored.
 */
import type { RefKind } from './streams';
import { WEEKDAYS, type Weekday } from './fields/sessions';
import { FEE_LEVELS, type FeeLevel } from './fields/channeling';
import { Limits } from './limits';
import { dateSchema, idSchema, TIME_PATTERN, type JsonSchema } from './schemas/common';

export const STORE_STATUSES = ['active', 'inactive'] as const;
export const DOCTOR_STATUSES = ['Active', 'Inactive'] as const;

export interface StoreRecord {
  id: number;
  name: string;
  status: (typeof STORE_STATUSES)[number];
  /** The hospital's share of a channeling fee, per fee level the branch offers (absent: local 0). */
  channeling_fees?: Partial<Record<FeeLevel, number>>;
  /** What heads the branch's receipts, slips and reports (absent: its name alone). */
  letterhead?: Letterhead;
}

export const LOGO_MEDIA_TYPES = ['image/png', 'image/jpeg'] as const;

/** A branch's letterhead: who issues its papers, where, how to reach them, under which registration. */
export interface Letterhead {
  legal_name: string;
  address: string;
  phone: string;
  /** The registration number of the institution (the health ministry's, the business registry's). */
  registration_no: string;
  /** Printed above the name, at most a few centimetres high. */
  logo?: { media_type: (typeof LOGO_MEDIA_TYPES)[number]; data_base64: string } | null;
}
export interface UserRecord {
  id: number;
  name: string;
  /**
   * The `sub` an identity provider's tokens carry for this person (a text, as every provider issues): a token
   * with it acts as this staff user (billed_by, the drawer, reports).
   */
  subject?: string;
}
export interface PatientRecord {
  id: number;
  name: string;
}
export interface ScheduleEntry {
  day: Weekday;
  session_no: number;
  start_time: string | null;
  end_time: string | null;
  max_patients: number | null;
}
export interface DoctorRecord {
  id: number;
  name: string;
  reg_no: string;
  specialization: string;
  channeling_fee: number;
  status: (typeof DOCTOR_STATUSES)[number];
  store_id: number | null;
  schedule: ScheduleEntry[];
  /** Minutes each patient takes, for the appointments' estimated times (absent: 10). */
  minutes_per_patient?: number;
  /** Whether the doctor is paid for a patient booked who never came (absent: false). */
  paid_for_absent?: boolean;
}
export interface AppointmentRecord {
  id: number;
  session_id: number;
  status: string;
}
/** A doctor's absence, from_date to to_date inclusive: no session is planned on those dates. */
export interface DoctorLeaveRecord {
  id: number;
  doctor_id: number;
  from_date: string;
  to_date: string;
  reason?: string | null;
}
/** A day without sessions: at one branch, or at every branch when store_id is null. */
export interface HolidayRecord {
  id: number;
  date: string;
  store_id: number | null;
  name: string;
}
export interface DeletionMarker {
  id: number;
  deleted: true;
}

export interface RefRecordByKind {
  store: StoreRecord;
  user: UserRecord;
  patient: PatientRecord;
  doctor: DoctorRecord;
  appointment: AppointmentRecord;
  doctor_leave: DoctorLeaveRecord;
  holiday: HolidayRecord;
}

/** The file `npm run seed` publishes; every key is optional. */
export type SeedFile = { [K in RefKind as `${K}s`]?: Array<RefRecordByKind[K] | DeletionMarker> };

const text: JsonSchema = { type: 'string', maxLength: 500 };

/** A logo of about 100 KB at most: the branch's record travels whole on every change of the branch. */
export const LOGO_MAX_BASE64_LENGTH = 140_000;

const letterheadSchema: JsonSchema = {
  type: 'object',
  required: ['legal_name', 'address', 'phone', 'registration_no'],
  properties: {
    legal_name: { ...text, minLength: 1 },
    address: text,
    phone: { type: 'string', maxLength: 100 },
    registration_no: { type: 'string', maxLength: 100 },
    logo: {
      type: 'object',
      nullable: true,
      required: ['media_type', 'data_base64'],
      properties: {
        media_type: { type: 'string', enum: [...LOGO_MEDIA_TYPES] },
        data_base64: { type: 'string', maxLength: LOGO_MAX_BASE64_LENGTH, pattern: '^[A-Za-z0-9+/]*={0,2}$' },
      },
    },
  },
};
const time: JsonSchema = { type: 'string', pattern: TIME_PATTERN, nullable: true };

export const REF_RECORD_SCHEMAS: Record<RefKind, JsonSchema> = {
  store: {
    type: 'object',
    required: ['id', 'name', 'status'],
    properties: {
      id: idSchema,
      name: text,
      status: { type: 'string', enum: [...STORE_STATUSES] },
      channeling_fees: {
        type: 'object',
        additionalProperties: false,
        properties: Object.fromEntries(
          FEE_LEVELS.map((level) => [level, { type: 'number', minimum: 0, maximum: 999_999_999.99 }]),
        ),
      },
      letterhead: letterheadSchema,
    },
  },
  user: {
    type: 'object',
    required: ['id', 'name'],
    properties: {
      id: idSchema,
      name: text,
      subject: { type: 'string', minLength: 1, maxLength: Limits.subjectMaxLength },
    },
  },
  patient: { type: 'object', required: ['id', 'name'], properties: { id: idSchema, name: text } },
  doctor: {
    type: 'object',
    required: ['id', 'name', 'reg_no', 'specialization', 'channeling_fee', 'status', 'store_id', 'schedule'],
    properties: {
      id: idSchema,
      name: text,
      reg_no: text,
      specialization: text,
      channeling_fee: { type: 'number', minimum: 0 },
      status: { type: 'string', enum: [...DOCTOR_STATUSES] },
      store_id: { ...idSchema, nullable: true },
      minutes_per_patient: { type: 'integer', minimum: 1, maximum: 240 },
      paid_for_absent: { type: 'boolean' },
      schedule: {
        type: 'array',
        maxItems: 100,
        items: {
          type: 'object',
          required: ['day', 'session_no'],
          properties: {
            day: { type: 'string', enum: [...WEEKDAYS] },
            session_no: { type: 'integer', minimum: 1 },
            start_time: time,
            end_time: time,
            max_patients: { type: 'integer', minimum: 1, nullable: true },
          },
        },
      },
    },
  },
  appointment: {
    type: 'object',
    required: ['id', 'session_id', 'status'],
    properties: { id: idSchema, session_id: idSchema, status: { type: 'string', maxLength: 50 } },
  },
  doctor_leave: {
    type: 'object',
    required: ['id', 'doctor_id', 'from_date', 'to_date'],
    properties: {
      id: idSchema,
      doctor_id: idSchema,
      from_date: dateSchema,
      to_date: dateSchema,
      reason: { ...text, nullable: true },
    },
  },
  holiday: {
    type: 'object',
    required: ['id', 'date', 'store_id', 'name'],
    properties: {
      id: idSchema,
      date: dateSchema,
      store_id: { ...idSchema, nullable: true },
      name: { ...text, minLength: 1 },
    },
  },
};

/** What a record's schema cannot say: a leave ends on or after the day it starts. */
export function refRecordRuleProblem(kind: RefKind, record: Record<string, unknown>): string | null {
  if (kind === 'doctor_leave' && String(record.to_date) < String(record.from_date))
    return 'to_date must not be earlier than from_date.';
  return null;
}

export const DELETION_MARKER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['id', 'deleted'],
  properties: { id: idSchema, deleted: { type: 'boolean', enum: [true] } },
};

export function isDeletionMarker(value: unknown): value is DeletionMarker {
  return typeof value === 'object' && value !== null && (value as { deleted?: unknown }).deleted === true;
}
