import { closingEventDataSchema, paymentEventDataSchema, refundEventDataSchema } from './schemas/billing-money';
import { billWithItemsSchema } from './schemas/billing-replies';
import { chargeSchema } from './schemas/catalogue';
import type { JsonSchema } from './schemas/common';
import { sessionSchema } from './schemas/sessions';
import { appointmentBalanceSchema, appointmentSchema, settlementSchema } from './schemas/channeling';
import { approvalSchema } from './schemas/approvals';
import { shiftSchema } from './schemas/shifts';
import { ledgerEntrySchema } from './schemas/billing-money';
import { EventSubjects, type EventSubject } from './subjects';

/**
 * Every event a service publishes on JetStream. The JetStream message id
 * (`Nats-Msg-Id`) equals `event_id`, so a redelivery or a republished outbox
 * entry is recognisable.
 */
export interface DomainEvent<TData = Record<string, unknown>> {
  event_id: string;
  type: EventSubject;
  occurred_at: string;
  correlation_id: string | null;
  data: TData;
}

const billEventSchema: JsonSchema = {
  ...billWithItemsSchema,
  required: (billWithItemsSchema.required as string[]).filter((field) => field !== 'billed_by_name'),
  properties: Object.fromEntries(
    Object.entries(billWithItemsSchema.properties as Record<string, JsonSchema>).filter(
      ([field]) => field !== 'billed_by_name',
    ),
  ),
};

/** An appointment as sessions' events carry it: its money is billing's, in billing's events. */
const appointmentWithoutMoney: JsonSchema = {
  ...appointmentSchema,
  required: (appointmentSchema.required as string[]).filter((field) => field !== 'payment'),
  properties: Object.fromEntries(
    Object.entries(appointmentSchema.properties as Record<string, JsonSchema>).filter(([field]) => field !== 'payment'),
  ),
};

const dataOf = (key: string, schema: JsonSchema): JsonSchema => ({
  type: 'object',
  required: [key],
  properties: { [key]: schema },
});

/** Each event's `data`: the resource as it is after the change (a bill's money event: the entry and the bill's balance). */
export const EVENT_DATA_SCHEMAS: Record<EventSubject, JsonSchema> = {
  [EventSubjects.billCreated]: dataOf('bill', billEventSchema),
  [EventSubjects.billUpdated]: dataOf('bill', billEventSchema),
  [EventSubjects.billCancelled]: dataOf('bill', billEventSchema),
  [EventSubjects.billPaymentRecorded]: paymentEventDataSchema,
  [EventSubjects.billRefunded]: refundEventDataSchema,
  [EventSubjects.dayClosed]: closingEventDataSchema,
  [EventSubjects.dayReopened]: closingEventDataSchema,
  [EventSubjects.chargeCreated]: dataOf('charge', chargeSchema),
  [EventSubjects.chargeUpdated]: dataOf('charge', chargeSchema),
  [EventSubjects.chargeDeleted]: dataOf('charge', chargeSchema),
  [EventSubjects.sessionCreated]: dataOf('session', sessionSchema),
  [EventSubjects.sessionUpdated]: dataOf('session', sessionSchema),
  [EventSubjects.sessionDeleted]: dataOf('session', sessionSchema),
  [EventSubjects.sessionCancelled]: dataOf('session', sessionSchema),
  [EventSubjects.sessionCompleted]: dataOf('session', sessionSchema),
  [EventSubjects.appointmentBooked]: dataOf('appointment', appointmentWithoutMoney),
  [EventSubjects.appointmentUpdated]: dataOf('appointment', appointmentWithoutMoney),
  [EventSubjects.appointmentArrived]: dataOf('appointment', appointmentWithoutMoney),
  [EventSubjects.appointmentConsulted]: dataOf('appointment', appointmentWithoutMoney),
  [EventSubjects.appointmentAbsent]: dataOf('appointment', appointmentWithoutMoney),
  [EventSubjects.appointmentCancelled]: dataOf('appointment', appointmentWithoutMoney),
  [EventSubjects.appointmentPaymentRecorded]: {
    type: 'object',
    required: ['payment', 'appointment'],
    properties: { payment: ledgerEntrySchema, appointment: appointmentBalanceSchema },
  },
  [EventSubjects.appointmentRefunded]: {
    type: 'object',
    required: ['refund', 'appointment'],
    properties: { refund: ledgerEntrySchema, appointment: appointmentBalanceSchema },
  },
  [EventSubjects.settlementPaid]: dataOf('settlement', settlementSchema),
  [EventSubjects.settlementReversed]: dataOf('settlement', settlementSchema),
  [EventSubjects.shiftOpened]: dataOf('shift', shiftSchema),
  [EventSubjects.shiftCashMoved]: dataOf('shift', shiftSchema),
  [EventSubjects.shiftClosed]: dataOf('shift', shiftSchema),
  [EventSubjects.shiftHandingOver]: dataOf('shift', shiftSchema),
  [EventSubjects.shiftHandedOver]: dataOf('shift', shiftSchema),
  [EventSubjects.shiftSignedOff]: dataOf('shift', shiftSchema),
  [EventSubjects.approvalRequested]: dataOf('approval', approvalSchema),
  [EventSubjects.approvalApproved]: dataOf('approval', approvalSchema),
  [EventSubjects.approvalDeclined]: dataOf('approval', approvalSchema),
  [EventSubjects.approvalUsed]: dataOf('approval', approvalSchema),
  [EventSubjects.approvalReleased]: dataOf('approval', approvalSchema),
};

/** The envelope of every event, with the `data` of `subject`. */
export function eventSchema(subject: EventSubject): JsonSchema {
  return {
    type: 'object',
    required: ['event_id', 'type', 'occurred_at', 'correlation_id', 'data'],
    properties: {
      event_id: { type: 'string', format: 'uuid', description: 'also the JetStream message id (Nats-Msg-Id)' },
      type: { type: 'string', enum: [subject] },
      occurred_at: { type: 'string', format: 'date-time' },
      correlation_id: { type: 'string', nullable: true, description: 'of the request that made the change' },
      data: EVENT_DATA_SCHEMAS[subject],
    },
  };
}
