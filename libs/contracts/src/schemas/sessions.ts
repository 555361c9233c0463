import { Limits } from '../limits';
import { dateSchema, IGNORED_FIELDS_NOTE, idSchema, optionalText, successSchema, timeSchema, type JsonSchema } from './common';

export const SESSION_DISPLAY_STATUSES = ['Open', 'Closed', 'Full'] as const;
export const SESSION_STORED_STATUSES = ['active', 'cancelled', 'completed'] as const;
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
export type SessionDisplayStatus = (typeof SESSION_DISPLAY_STATUSES)[number];
export type SessionStoredStatus = (typeof SESSION_STORED_STATUSES)[number];
export type Weekday = (typeof WEEKDAYS)[number];

const maxPatientsSchema: JsonSchema = { type: 'integer', minimum: 1, maximum: Limits.maxPatientsMax };

export const addSessionBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: IGNORED_FIELDS_NOTE,
  required: ['doctor_id', 'session_date', 'session_no', 'start_time', 'end_time'],
  properties: {
    doctor_id: idSchema,
    session_date: { ...dateSchema, description: 'today or later, in the clinic time zone' },
    session_no: { type: 'integer', minimum: 1, maximum: Limits.sessionNoMax },
    start_time: timeSchema,
    end_time: { ...timeSchema, description: 'later than start_time' },
    max_patients: { ...maxPatientsSchema, nullable: true, description: 'absent or null: no cap' },
    status: { type: 'string', default: 'Open', maxLength: 20, description: '`Open` is stored active, anything else cancelled' },
    notes: { ...optionalText(Limits.notesMaxLength), description: 'accepted and ignored' },
  },
};

export const updateSessionBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: `At least one of the fields below other than notes. doctor_id, session_no and store_id cannot be changed and are ignored; so are notes. ${IGNORED_FIELDS_NOTE}`,
  anyOf: ['session_date', 'start_time', 'end_time', 'max_patients', 'status'].map((field) => ({ type: 'object', required: [field] })),
  properties: {
    session_date: { type: 'string', minLength: 1, maxLength: 10, description: 'applied as given: neither format- nor past-checked', example: '2026-12-01' },
    start_time: timeSchema,
    end_time: timeSchema,
    max_patients: {
      description: 'null or an empty string removes the cap',
      anyOf: [{ ...maxPatientsSchema, nullable: true }, { type: 'string', maxLength: 0 }],
    },
    // Not an enum: the spec stores any value other than Closed as active.
    status: { type: 'string', description: '`Open`, `Closed` or `Full`: `Closed` is stored cancelled, any other value active (Full is derived only)' },
    notes: { ...optionalText(Limits.notesMaxLength), description: 'accepted and ignored' },
    doctor_id: { ...idSchema, description: 'cannot be changed: ignored' },
    session_no: { type: 'integer', description: 'cannot be changed: ignored' },
    store_id: { ...idSchema, description: 'cannot be changed: ignored' },
  },
};

export const listSessionsQuerySchema: JsonSchema = {
  type: 'object',
  properties: {
    store_id: idSchema,
    doctor_id: idSchema,
    date: dateSchema,
    status: { type: 'string', maxLength: 20, description: 'Open, Closed or Full, compared with the derived status; any other value matches nothing' },
    conflicts: {
      type: 'string',
      enum: ['true', 'false'],
      description: '`true`: only the sessions that fall on a leave of their doctor or on a holiday of their branch, each with `on_leave` and `holiday`',
    },
  },
};

const scheduleSelection: Record<string, JsonSchema> = {
  month: {
    type: 'string',
    pattern: '^(\\d{4}-(0[1-9]|1[0-2]))?$',
    example: '2026-12',
    description: '`YYYY-MM`; absent or empty: the current month in the clinic time zone',
  },
  doctor_id: idSchema,
  store_id: idSchema,
};

export const previewQuerySchema: JsonSchema = { type: 'object', properties: scheduleSelection };

export const autoCreateBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: `Every field is optional; null is the same as absent. ${IGNORED_FIELDS_NOTE}`,
  properties: Object.fromEntries(Object.entries(scheduleSelection).map(([name, schema]) => [name, { ...schema, nullable: true }])),
};

export const sessionSchema: JsonSchema = {
  type: 'object',
  required: [
    'id', 'doctor_id', 'store_id', 'session_date', 'start_time', 'end_time', 'max_patients', 'session_no', 'status',
    'created_at', 'doctor_name', 'reg_no', 'specialization', 'channeling_fee', 'store_name', 'booked_count',
  ],
  properties: {
    id: idSchema,
    doctor_id: idSchema,
    store_id: idSchema,
    session_date: {
      type: 'string',
      example: '2026-11-21',
      description: '`YYYY-MM-DD`; as PUT /update_session/{id} set it, which the spec does not check',
    },
    start_time: timeSchema,
    end_time: timeSchema,
    max_patients: { type: 'integer', nullable: true },
    session_no: { type: 'integer' },
    status: { type: 'string', enum: [...SESSION_DISPLAY_STATUSES] },
    created_at: { type: 'string', nullable: true },
    doctor_name: { type: 'string', nullable: true },
    reg_no: { type: 'string', nullable: true },
    specialization: { type: 'string', nullable: true },
    channeling_fee: { type: 'number', nullable: true },
    store_name: { type: 'string', nullable: true },
    booked_count: { type: 'integer' },
  },
};

/**
 * Beyond the spec: whether a date is blocked by a doctor's leave or a holiday.
 * Present only once the service holds a leave or a holiday record, so that
 * without any, every answer is exactly the spec's.
 */
const conflictFields: Record<string, JsonSchema> = {
  on_leave: { type: 'boolean', description: 'the doctor is on leave that day (only once leave or holiday records exist)' },
  holiday: { type: 'string', nullable: true, description: "the name of the branch's holiday that day, or null (only once leave or holiday records exist)" },
};

export const previewEntrySchema: JsonSchema = {
  type: 'object',
  required: [
    'doctor_id', 'doctor_name', 'session_date', 'day', 'session_no', 'start_time', 'end_time', 'max_patients',
    'channeling_fee', 'exists', 'is_past',
  ],
  properties: {
    doctor_id: idSchema,
    doctor_name: { type: 'string' },
    session_date: dateSchema,
    day: { type: 'string', enum: [...WEEKDAYS] },
    session_no: { type: 'integer' },
    start_time: { type: 'string', nullable: true },
    end_time: { type: 'string', nullable: true },
    max_patients: { type: 'integer', nullable: true },
    channeling_fee: { type: 'number', nullable: true },
    exists: { type: 'boolean' },
    is_past: { type: 'boolean' },
    ...conflictFields,
  },
};

const sessionWithConflictSchema: JsonSchema = {
  ...sessionSchema,
  properties: { ...(sessionSchema.properties as Record<string, JsonSchema>), ...conflictFields },
};

export const sessionsResponses = {
  list: successSchema({ sessions: { type: 'array', items: sessionWithConflictSchema } }),
  one: successSchema({ session: sessionSchema }),
  created: successSchema({ message: { type: 'string' }, session_id: idSchema }),
  changed: successSchema({ message: { type: 'string' }, session_id: idSchema }),
  preview: successSchema({
    month: { type: 'string', example: 'December 2026' },
    preview: { type: 'array', items: previewEntrySchema },
    new_count: { type: 'integer' },
    skip_count: { type: 'integer' },
  }),
  autoCreated: successSchema({
    message: { type: 'string' },
    created: { type: 'integer' },
    skipped: { type: 'integer' },
    errors: { type: 'array', maxItems: Limits.autoCreateErrorsMax, items: { type: 'string' } },
  }),
};
