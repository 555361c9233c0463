/** The channeling routes' requests and answers: appointments, their money, a session's settlement. */
import {
  APPOINTMENT_STATUSES,
  BOOKING_SOURCES,
  CHANNELING_FIELDS as C,
  FEE_LEVELS,
  FEE_PARTS,
} from '../fields/channeling';
import { LEDGER_FIELDS } from '../fields/billing-money';
import { Limits } from '../limits';
import { ledgerEntrySchema } from './billing-money';
import {
  actorSchema,
  dateSchema,
  idSchema,
  nonBlank,
  objectSchema,
  optionalText,
  strict,
  successSchema,
  timeSchema,
  timestampSchema,
  type JsonSchema,
} from './common';
import { shiftIdProperty } from './shifts';

const name = nonBlank(Limits.nameMaxLength);
const moneyNumber: JsonSchema = { type: 'number' };

export const bookingBodySchema: JsonSchema = strict({
  type: 'object',
  description: 'A patient booked into the session: the next number, its time, the fee of the level.',
  example: { patient_name: 'Nimal Perera', patient_contact: '0771234567', patient_nic: '851234567V' },
  required: ['patient_name', 'patient_contact'],
  properties: {
    patient_name: name,
    patient_contact: nonBlank(Limits.contactMaxLength),
    patient_nic: optionalText(Limits.nicMaxLength),
    patient_id: { ...C.patient_id.schema, nullable: true },
    fee_level: { ...C.fee_level.schema, description: "the branch's hospital fee level (its `channeling_fees`)" },
    source: {
      ...C.source.schema,
      description: 'agent: takes one of the numbers the session reserves for online agents',
    },
  },
});

export const appointmentUpdateBodySchema: JsonSchema = strict({
  type: 'object',
  description: 'A move of the appointment (booked -> arrived -> consulted, or absent), or corrected patient details.',
  minProperties: 1,
  example: { status: 'arrived' },
  properties: {
    status: {
      ...C.status.schema,
      description: 'booked -> arrived or absent; arrived -> consulted or absent; absent -> arrived',
    },
    patient_name: name,
    patient_contact: nonBlank(Limits.contactMaxLength),
    patient_nic: optionalText(Limits.nicMaxLength),
    patient_id: { ...C.patient_id.schema, nullable: true },
  },
});

export const reasonBodySchema: JsonSchema = strict({
  type: 'object',
  example: { reason: 'Patient asked to cancel' },
  required: ['reason'],
  properties: { reason: nonBlank(Limits.cancelReasonMaxLength) },
});

/** A cancellation's or a reversal's reason, and the shift whose drawer the money moves in (CASH_SHIFTS=on). */
export const reasonWithShiftBodySchema: JsonSchema = {
  ...reasonBodySchema,
  properties: { ...(reasonBodySchema.properties as Record<string, JsonSchema>), shift_id: shiftIdProperty },
};

/** What an appointment's money stands at (billing's ledger); null when billing could not be asked. */
export const appointmentPaymentSchema: JsonSchema = {
  ...objectSchema({
    total_fee: moneyNumber,
    paid_amount: { ...moneyNumber, description: 'payments less reversals' },
    refunded_amount: moneyNumber,
    due_amount: { ...moneyNumber, description: 'total_fee less paid_amount, never below 0' },
    refund_due: { ...moneyNumber, description: 'a cancelled appointment: what it holds, to give back' },
    payment_status: { type: 'string', enum: ['Unpaid', 'Partly paid', 'Paid', 'Refunded'] },
  }),
  nullable: true,
};

export const appointmentSchema: JsonSchema = objectSchema({
  id: { ...idSchema, description: 'session_id x 10,000 + appointment_no' },
  session_id: idSchema,
  appointment_no: { type: 'integer', minimum: 1, maximum: Limits.appointmentsPerSessionMax },
  estimated_time: {
    ...timeSchema,
    description: "start (or the doctor's arrival) + (number - 1) x minutes per patient",
  },
  status: { type: 'string', enum: [...APPOINTMENT_STATUSES] },
  patient_name: { type: 'string' },
  patient_contact: { type: 'string' },
  patient_nic: { type: 'string', nullable: true },
  patient_id: { ...idSchema, nullable: true },
  fee_level: { type: 'string', enum: [...FEE_LEVELS] },
  source: { type: 'string', enum: [...BOOKING_SOURCES] },
  doctor_fee: { ...moneyNumber, description: `the doctor's share (item ${FEE_PARTS.doctor} of its ledger)` },
  hospital_fee: { ...moneyNumber, description: `the branch's share (item ${FEE_PARTS.hospital})` },
  total_fee: moneyNumber,
  store_id: idSchema,
  doctor_id: idSchema,
  session_date: dateSchema,
  booked_by: actorSchema,
  booked_at: { ...timestampSchema, nullable: false },
  cancel_reason: { type: 'string', nullable: true },
  cancelled_at: timestampSchema,
  payment: appointmentPaymentSchema,
});

export const appointmentReplies = {
  booked: successSchema({ message: { type: 'string' }, appointment: appointmentSchema }),
  one: successSchema({ appointment: appointmentSchema }),
  changed: successSchema({ message: { type: 'string' }, appointment: appointmentSchema }),
  list: successSchema({
    session_id: idSchema,
    booked_count: { type: 'integer' },
    appointments: { type: 'array', items: appointmentSchema },
  }),
} as const;

/** An appointment's money after a payment or refund, as its answer and its event carry it. */
export const appointmentBalanceSchema: JsonSchema = objectSchema({
  appointment_id: idSchema,
  session_id: idSchema,
  store_id: idSchema,
  ...(appointmentPaymentSchema.properties as Record<string, JsonSchema>),
});

export const appointmentMoneyReplies = {
  payment: successSchema({
    message: { type: 'string' },
    payment: ledgerEntrySchema,
    appointment: appointmentBalanceSchema,
  }),
  refund: successSchema({
    message: { type: 'string' },
    refund: ledgerEntrySchema,
    appointment: appointmentBalanceSchema,
  }),
  ledger: successSchema({
    appointment: appointmentBalanceSchema,
    ledger: { type: 'array', items: ledgerEntrySchema },
  }),
  cancelled: successSchema({
    message: { type: 'string' },
    appointment: appointmentSchema,
    refunds: { type: 'array', items: ledgerEntrySchema },
  }),
} as const;

export const settlementLineSchema: JsonSchema = objectSchema({
  appointment_id: idSchema,
  appointment_no: { type: 'integer' },
  patient_name: { type: 'string' },
  status: { type: 'string', enum: [...APPOINTMENT_STATUSES] },
  doctor_fee: moneyNumber,
  doctor_paid: { ...moneyNumber, description: "what the patient paid of the doctor's share" },
  doctor_refunded: moneyNumber,
  earned: { ...moneyNumber, description: 'what the doctor is paid for it' },
});

export const settlementSchema: JsonSchema = objectSchema({
  session_id: idSchema,
  store_id: idSchema,
  doctor_id: idSchema,
  doctor_name: { type: 'string', nullable: true },
  session_date: dateSchema,
  status: { type: 'string', enum: ['paid', 'reversed'] },
  amount: { ...moneyNumber, description: "the doctor's payout: the sum of the lines' earned" },
  method: LEDGER_FIELDS.method.schema,
  day: { ...dateSchema, description: "the clinic's day the cash went out (its drawer)" },
  paid_at: { ...timestampSchema, nullable: false },
  paid_by: actorSchema,
  lines: { type: 'array', items: settlementLineSchema },
  reversal: {
    ...objectSchema({ reason: { type: 'string' }, at: { ...timestampSchema, nullable: false }, by: actorSchema }),
    nullable: true,
  },
});

export const settlementBodySchema: JsonSchema = strict({
  type: 'object',
  description: "Pays the doctor their share of the completed session, out of the caller's drawer.",
  example: { method: 'Cash' },
  properties: { method: { ...LEDGER_FIELDS.method.schema, description: 'Cash by default' }, shift_id: shiftIdProperty },
});

export const settlementReplies = {
  paid: successSchema({ message: { type: 'string' }, settlement: settlementSchema }),
  one: successSchema({ settlement: settlementSchema }),
} as const;

/** Sessions' question to billing: the money of these appointments. */
export const balancesBodySchema: JsonSchema = strict({
  type: 'object',
  required: ['appointment_ids'],
  properties: { appointment_ids: { type: 'array', maxItems: Limits.appointmentsPerSessionMax, items: idSchema } },
});
export const balancesReplySchema: JsonSchema = successSchema({
  balances: {
    type: 'object',
    description: 'by appointment id: what it was paid and refunded (0 and 0 for one that took no money)',
    additionalProperties: objectSchema({ paid_amount: moneyNumber, refunded_amount: moneyNumber }),
  },
});

/** Billing's question to sessions: a session (or one appointment's) and its appointments as stored, without money. */
export const channelingQuerySchema: JsonSchema = {
  type: 'object',
  properties: { session_id: idSchema, appointment_id: idSchema },
};
const appointmentWithoutPayment: JsonSchema = {
  ...appointmentSchema,
  required: (appointmentSchema.required as string[]).filter((field) => field !== 'payment'),
  properties: Object.fromEntries(
    Object.entries(appointmentSchema.properties as Record<string, JsonSchema>).filter(([field]) => field !== 'payment'),
  ),
};
export const channelingReplySchema: JsonSchema = successSchema({
  session: {
    type: 'object',
    description: "the session as its read answers it, with `paid_for_absent` (its doctor's setting)",
  },
  appointments: { type: 'array', items: appointmentWithoutPayment },
});
export const cancelReplySchema: JsonSchema = successSchema({
  appointment: appointmentWithoutPayment,
  already: { type: 'boolean', description: 'it was cancelled before: billing finishes what it began' },
});
