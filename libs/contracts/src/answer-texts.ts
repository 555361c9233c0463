/** Texts of successful answers, which need no error code (libs/contracts/test/error-codes.test.ts checks both lists). */
import type { ErrorText } from './error-code-entry';
import { APPROVAL_MESSAGES, SHIFT_MESSAGES } from './fields/cash-office';
import { BILLING_MESSAGES } from './fields/billing';
import { DAY_MESSAGES, LEDGER_MESSAGES } from './fields/billing-money';
import { CATALOGUE_MESSAGES } from './fields/catalogue';
import { CHANNELING_MESSAGES } from './fields/channeling';
import { SESSIONS_MESSAGES } from './fields/sessions';

/** A new one goes here, or it is an error's and gets a code. */
export const ANSWER_TEXTS: readonly ErrorText[] = [
  BILLING_MESSAGES.created,
  BILLING_MESSAGES.updated,
  BILLING_MESSAGES.cancelled,
  CATALOGUE_MESSAGES.created,
  CATALOGUE_MESSAGES.updated,
  CATALOGUE_MESSAGES.deleted,
  SESSIONS_MESSAGES.created,
  SESSIONS_MESSAGES.updated,
  SESSIONS_MESSAGES.deleted,
  SESSIONS_MESSAGES.autoCreated,
  // Auto-creation's report of the slots it skipped, in its 201 answer.
  SESSIONS_MESSAGES.noTimes,
  SESSIONS_MESSAGES.notSaved,
  LEDGER_MESSAGES.paymentRecorded,
  LEDGER_MESSAGES.refundRecorded,
  CHANNELING_MESSAGES.booked,
  CHANNELING_MESSAGES.updated,
  CHANNELING_MESSAGES.cancelledOk,
  CHANNELING_MESSAGES.completed,
  CHANNELING_MESSAGES.settled,
  CHANNELING_MESSAGES.settlementReversed,
  // The reasons an appointment is cancelled or marked absent with, in its answer and events.
  CHANNELING_MESSAGES.sessionCancelled,
  CHANNELING_MESSAGES.doctorOnLeave,
  CHANNELING_MESSAGES.noShow,
  DAY_MESSAGES.closedNow,
  DAY_MESSAGES.reopened,
  // The reasons written on the ledger entries a cancellation or a change of a bill makes.
  LEDGER_MESSAGES.cancelled,
  LEDGER_MESSAGES.setBackToPending,
  LEDGER_MESSAGES.methodChanged,
  SHIFT_MESSAGES.opened,
  SHIFT_MESSAGES.moved,
  SHIFT_MESSAGES.closed,
  SHIFT_MESSAGES.signedOff,
  SHIFT_MESSAGES.handingOver,
  SHIFT_MESSAGES.accepted,
  APPROVAL_MESSAGES.requested,
  APPROVAL_MESSAGES.approved,
  APPROVAL_MESSAGES.declined,
  APPROVAL_MESSAGES.used,
  APPROVAL_MESSAGES.released,
];
