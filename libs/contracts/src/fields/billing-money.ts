/**
 * What a bill's payments and refunds, and a branch's closed day, may hold, and
 * what billing answers about them: stated once for the service and
 * its schemas.
 */
import { Limits } from '../limits';
import { PAYMENT_METHODS } from './billing';
import { calendarDate, FIELD_MESSAGES, fieldRule, money, oneOf, positiveId } from './common';

/** A payment takes money in; a refund gives it back; a reversal undoes a payment (the bill is owed again). */
export const LEDGER_KINDS = ['payment', 'refund', 'reversal'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** A branch's day: open, being closed (writes of it already refused), closed. */
export const DAY_STATUSES = ['open', 'closing', 'closed'] as const;
export type DayStatus = (typeof DAY_STATUSES)[number];

/** How a user's counted cash compares with what the ledger expects. */
export const CASH_OUTCOMES = ['over', 'short', 'balanced', 'not counted'] as const;
export type CashOutcome = (typeof CASH_OUTCOMES)[number];

/** A string of at most `max` characters (null allowed: the parsers decide whether it may be absent). */
const text = (max: number) =>
  fieldRule<string>({ type: 'string', nullable: true, maxLength: max }, (field, value) =>
    typeof value === 'string' ? FIELD_MESSAGES.tooLong(field, max) : FIELD_MESSAGES.notText(field),
  );

export const LEDGER_FIELDS = {
  /** A payment's or a refund's amount: more than 0. */
  amount: money({ positive: true }),
  method: oneOf(PAYMENT_METHODS),
  /** What a patient handed over for a Cash payment. */
  received_amount: money(),
  reference: text(Limits.paymentReferenceMaxLength),
  reason: text(Limits.cancelReasonMaxLength),
  item_id: positiveId,
  store_id: positiveId,
  date: calendarDate,
  counted_cash: fieldRule<unknown[]>({ type: 'array', maxItems: Limits.countedCashMax }, (field, value) =>
    Array.isArray(value) ? FIELD_MESSAGES.tooMany(field, Limits.countedCashMax) : `${field} must be a list.`,
  ),
  /** A user as tokens name them (`sub`): an integer, or a text. */
  user_id: fieldRule<number | string>(
    {
      anyOf: [
        { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        { type: 'string', minLength: 1, maxLength: Limits.userIdMaxLength },
      ],
    },
    (field) => `${field} must be an integer or a text of 1 to ${Limits.userIdMaxLength} characters.`,
  ),
  counted_amount: money(),
} as const;

/** Money in messages: as the API writes amounts. */
const amount = (cents: number) => String(cents / 100);

export const LEDGER_MESSAGES = {
  paymentRecorded: 'Payment recorded successfully.',
  refundRecorded: 'Refund recorded successfully.',
  overDue: (dueCents: number) => `amount must be at most the amount due, ${amount(dueCents)}.`,
  overHeld: (heldCents: number) => `amount must be at most what was paid and not yet refunded, ${amount(heldCents)}.`,
  overItem: (leftCents: number) => `amount must be at most what is left to refund of that item, ${amount(leftCents)}.`,
  /** An amount is rounded half-up to the cent, as a bill's prices are: what rounds to 0 moves no money. */
  belowOneCent: 'amount must be at least 0.01.',
  receivedBelowAmount: 'received_amount must be at least the amount.',
  notAnItem: 'item_id must be an item of this bill.',
  reasonRequired: 'reason is required.',
  /** The reason of what a cancellation without one gives back, and of a PUT back to Pending. */
  cancelled: 'Bill cancelled.',
  setBackToPending: 'Payment status set back to Pending.',
  methodChanged: (method: string) => `Payment method changed to ${method}.`,
  ledgerFull: `A bill holds at most ${Limits.ledgerEntriesMax} payments and refunds.`,
  priceOverride: (chargeIds: number[]) =>
    `You may not bill charge(s) ${chargeIds.join(', ')} at a price other than the catalogue's.`,
} as const;

export const DAY_MESSAGES = {
  closed: (date: string, storeId: number) => `Day ${date} is closed for store ${storeId}.`,
  alreadyClosed: (date: string, storeId: number) => `Day ${date} is already closed for store ${storeId}.`,
  notClosed: (date: string, storeId: number) => `Day ${date} is not closed for store ${storeId}.`,
  inFuture: (today: string) => `date must not be after today, ${today}: a day is closed once it has begun.`,
  stillRecording: (date: string, storeId: number) =>
    `Payments of ${date} are still being recorded for store ${storeId}. Please retry.`,
  duplicateUser: (userId: number | string) => `counted_cash lists user ${userId} more than once.`,
  changedMeanwhile: (date: string, storeId: number) =>
    `Day ${date} of store ${storeId} was closed or reopened meanwhile. Please retry.`,
  closedNow: 'Day closed successfully.',
  reopened: 'Day reopened successfully.',
  reasonRequired: 'reason is required: give the reason for reopening the day.',
} as const;
