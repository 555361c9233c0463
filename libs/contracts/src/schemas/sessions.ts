/** The channeling-session routes' requests and answers, built from the session's field rules (fields/sessions.ts). */
import { NEW_SESSION_STATUS, SESSION_DISPLAY_STATUSES, SESSION_FIELDS as F, WEEKDAYS } from '../fields/sessions';
import { CHANNELING_FIELDS as C } from '../fields/channeling';
import { Limits } from '../limits';
import {
  orEmptyAsNull,
  dateSchema,
  IGNORED_FIELDS_NOTE,
  idSchema,
  MONTH_SHAPE,
  optionallyPagedList,
  optionalPageQueryProperties,
  optionalText,
  orList,
  successSchema,
  timeSchema,
  type JsonSchema,
} from './common';

const quoted = (values: readonly string[]) => values.map((v) => `\`${v}\``);

export const addSessionBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: IGNORED_FIELDS_NOTE,
  // A session the API takes: a day ahead of any today, an end after its start (the properties' own examples too).
  example: { doctor_id: 1, session_date: '2099-01-05', session_no: 1, start_time: '09:00', end_time: '12:00' },
  required: ['doctor_id', 'session_date', 'session_no', 'start_time', 'end_time'],
  properties: {
    doctor_id: F.doctor_id.schema,
    session_date: {
      ...F.session_date.schema,
      example: '2099-01-05',
      description: 'today or later, in the clinic time zone',
    },
    session_no: F.session_no.schema,
    start_time: F.time.schema,
    end_time: { ...F.time.schema, example: '12:00', description: 'later than start_time' },
    max_patients: { ...F.max_patients.schema, nullable: true, description: 'absent or null: no cap' },
    status: {
      type: 'string',
      default: NEW_SESSION_STATUS,
      maxLength: Limits.sessionStatusMaxLength,
      description: `\`${NEW_SESSION_STATUS}\` is stored active, anything else cancelled`,
    },
    notes: { ...optionalText(Limits.notesMaxLength), description: 'accepted and ignored' },
  },
};

export const updateSessionBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: `At least one of the fields below other than notes. doctor_id, session_no and store_id cannot be changed and are ignored; so are notes. ${IGNORED_FIELDS_NOTE}`,
  anyOf: [
    'session_date',
    'start_time',
    'end_time',
    'max_patients',
    'status',
    'minutes_per_patient',
    'reserved_numbers',
    'doctor_arrived_at',
  ].map((field) => ({
    type: 'object',
    required: [field],
  })),
  properties: {
    session_date: {
      type: 'string',
      minLength: 1,
      maxLength: 10,
      description: 'applied as given: neither format- nor past-checked',
      example: '2026-12-01',
    },
    start_time: F.time.schema,
    end_time: F.time.schema,
    max_patients: orEmptyAsNull(F.max_patients.schema, 'null or an empty string removes the cap'),
    // Not an enum: the spec stores any value other than Closed as active.
    status: {
      type: 'string',
      description: `${orList(quoted(SESSION_DISPLAY_STATUSES))}: \`Closed\` is stored cancelled, any other value active (Full is derived only)`,
    },
    minutes_per_patient: {
      ...C.minutes_per_patient.schema,
      description: "for the estimated times (default: the doctor's, else 10)",
    },
    reserved_numbers: {
      ...C.reserved_numbers.schema,
      description: 'the first numbers kept for online agents (at most max_patients)',
    },
    doctor_arrived_at: {
      ...C.doctor_arrived_at.schema,
      description: "the doctor's arrival: the estimated times move after it",
    },
    notes: { ...optionalText(Limits.notesMaxLength), description: 'accepted and ignored' },
    doctor_id: { ...idSchema, description: 'cannot be changed: ignored' },
    session_no: { type: 'integer', description: 'cannot be changed: ignored' },
    store_id: { ...idSchema, description: 'cannot be changed: ignored' },
  },
};

export const listSessionsQuerySchema: JsonSchema = {
  type: 'object',
  properties: {
    store_id: F.store_id.schema,
    doctor_id: F.doctor_id.schema,
    date: F.date.schema,
    status: {
      type: 'string',
      maxLength: Limits.sessionStatusMaxLength,
      description: `${orList(SESSION_DISPLAY_STATUSES)}, compared with the derived status; any other value matches nothing`,
    },
    conflicts: {
      ...F.conflicts.schema,
      description:
        '`true`: only the sessions that fall on a leave of their doctor or on a holiday of their branch, each with `on_leave` and `holiday`',
    },
    ...optionalPageQueryProperties,
  },
};

const scheduleSelection: Record<string, JsonSchema> = {
  month: {
    type: 'string',
    pattern: `^(${MONTH_SHAPE})?$`,
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
  properties: Object.fromEntries(
    Object.entries(scheduleSelection).map(([name, schema]) => [name, { ...schema, nullable: true }]),
  ),
};

export const sessionSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'doctor_id',
    'store_id',
    'session_date',
    'start_time',
    'end_time',
    'max_patients',
    'session_no',
    'status',
    'created_at',
    'doctor_name',
    'reg_no',
    'specialization',
    'channeling_fee',
    'store_name',
    'booked_count',
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
    closed_as: {
      type: 'string',
      enum: ['cancelled', 'completed'],
      nullable: true,
      description: 'why a Closed session is closed; null while it is open',
    },
    minutes_per_patient: {
      type: 'integer',
      description: "for the appointments' estimated times: the session's setting, else the doctor's, else 10",
    },
    reserved_numbers: { type: 'integer', description: 'the first numbers, kept for online agents' },
    doctor_arrived_at: { ...timeSchema, nullable: true, description: 'moves the estimated times when set' },
  },
};

/**
 * Beyond the spec: whether a date is blocked by a doctor's leave or a holiday.
 * Present only once the service holds a leave or a holiday record, so that
 * without any, every answer is exactly the spec's.
 */
const conflictFields: Record<string, JsonSchema> = {
  on_leave: {
    type: 'boolean',
    description: 'the doctor is on leave that day (only once leave or holiday records exist)',
  },
  holiday: {
    type: 'string',
    nullable: true,
    description: "the name of the branch's holiday that day, or null (only once leave or holiday records exist)",
  },
};

export const previewEntrySchema: JsonSchema = {
  type: 'object',
  required: [
    'doctor_id',
    'doctor_name',
    'session_date',
    'day',
    'session_no',
    'start_time',
    'end_time',
    'max_patients',
    'channeling_fee',
    'exists',
    'is_past',
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
  list: optionallyPagedList('sessions', sessionWithConflictSchema, false),
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
