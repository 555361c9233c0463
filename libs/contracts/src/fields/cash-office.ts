/**
 * The cash office: cashiers' shifts, their drawers, and the
 * approvals a clinic's controls ask for. What their fields may hold and what
 * billing answers, stated once for the services and their schemas.
 */
import { Limits } from '../limits';
import { calendarDate, FIELD_MESSAGES, fieldRule, integerFrom, money, oneOf, positiveId } from './common';

/**
 * A shift's life: open (takes money), closing (a close or handover waits for its writes in flight),
 * handing_over (counted, waiting for the next cashier), closed, handed_over (accepted by the next cashier).
 */
export const SHIFT_STATUSES = ['open', 'closing', 'handing_over', 'closed', 'handed_over'] as const;
export type ShiftStatus = (typeof SHIFT_STATUSES)[number];
/** A shift that still holds its drawer: the day cannot close while one does. */
export const LIVE_SHIFT_STATUSES: readonly ShiftStatus[] = ['open', 'closing', 'handing_over'];

/** Cash that leaves a drawer by the shift's own hand: to the safe, or paid out (petty cash) with a reason. */
export const SHIFT_MOVEMENTS = ['drop', 'payout'] as const;
export type ShiftMovement = (typeof SHIFT_MOVEMENTS)[number];

/** The controls a clinic may switch on; each names what needs an admin's approval. */
export const APPROVAL_RULES = [
  'price_override',
  'discount_above_pct',
  'bill_date',
  'refund_tender',
  'received_short',
  'catalogue_change',
] as const;
export type ApprovalRule = (typeof APPROVAL_RULES)[number];

export const APPROVAL_STATUSES = ['requested', 'approved', 'declined', 'used'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** What a use of an approval is recorded on. */
export const APPROVAL_TARGETS = ['bill', 'refund', 'charge'] as const;
export type ApprovalTarget = (typeof APPROVAL_TARGETS)[number];

const text = (max: number) =>
  fieldRule<string>({ type: 'string', nullable: true, maxLength: max }, (field, value) =>
    typeof value === 'string' ? FIELD_MESSAGES.tooLong(field, max) : FIELD_MESSAGES.notText(field),
  );

const list = (max: number) =>
  fieldRule<unknown[]>({ type: 'array', maxItems: max }, (field, value) =>
    Array.isArray(value) ? FIELD_MESSAGES.tooMany(field, max) : `${field} must be a list.`,
  );

export const CASH_OFFICE_FIELDS = {
  store_id: positiveId,
  shift_id: positiveId,
  approval_id: positiveId,
  /** A float, a count, a drop or a payout: an amount of cash, 0 allowed for a float or a count. */
  cash: money(),
  positive_cash: money({ positive: true }),
  denominations: list(Limits.denominationsMax),
  /** A note or a coin's face value. */
  denomination_value: money({ positive: true }),
  denomination_count: integerFrom(0, Limits.denominationCountMax),
  note: text(Limits.cancelReasonMaxLength),
  reason: text(Limits.cancelReasonMaxLength),
  to_user_id: positiveId,
  date: calendarDate,
  shift_status: oneOf(SHIFT_STATUSES),
  approval_status: oneOf(APPROVAL_STATUSES),
  rule: oneOf(APPROVAL_RULES),
  checks: fieldRule<unknown[]>({ type: 'array', minItems: 1, maxItems: Limits.approvalChecksMax }, (field, value) =>
    Array.isArray(value) && value.length > 0
      ? FIELD_MESSAGES.tooMany(field, Limits.approvalChecksMax)
      : `${field} must list at least one check.`,
  ),
  target: oneOf(APPROVAL_TARGETS),
} as const;

const amount = (cents: number) => String(cents / 100);

export const SHIFT_MESSAGES = {
  opened: 'Shift opened successfully.',
  moved: 'Cash movement recorded successfully.',
  closed: 'Shift closed successfully.',
  signedOff: 'Shift signed off successfully.',
  handingOver: 'Drawer counted: waiting for the next cashier to accept it.',
  accepted: 'Handover accepted: your shift is open.',
  notFound: 'Shift not found.',
  shiftsOff: 'Shifts are not in use at this clinic (CASH_SHIFTS=off).',
  alreadyOpen: (storeId: number, shiftId: number) =>
    `You have a shift open at store ${storeId} already (shift ${shiftId}): close or hand it over first.`,
  required: (storeId: number) =>
    `No shift pays this: open a shift at store ${storeId} first, or name the open shift that pays (shift_id).`,
  notOpen: (shiftId: number, status: string) => `Shift ${shiftId} is ${status.replace('_', ' ')}: it takes no money.`,
  notYours: (shiftId: number) => `Shift ${shiftId} is another cashier's: only they or an admin may use it.`,
  otherBranch: (shiftId: number, storeId: number) => `Shift ${shiftId} is not a shift of store ${storeId}.`,
  drawerShort: (shiftId: number, cashCents: number) =>
    `Shift ${shiftId}'s drawer holds ${amount(cashCents)} in cash: not enough for this.`,
  stillRecording: (shiftId: number) => `Payments of shift ${shiftId} are still being recorded. Please retry.`,
  notClosed: (shiftId: number) => `Shift ${shiftId} is not closed: only a closed shift is signed off.`,
  signedOffAlready: (shiftId: number) => `Shift ${shiftId} is already signed off.`,
  notHandingOver: (shiftId: number) => `Shift ${shiftId} is not waiting for a handover.`,
  notTheReceiver: (shiftId: number) => `Shift ${shiftId} is handed over to another cashier.`,
  handoverMismatch: (countedCents: number) =>
    `amount must be the amount counted at the handover, ${amount(countedCents)}: count again with the cashier.`,
  selfHandover: 'to_user_id must be another cashier than the shift’s.',
  denominationsMismatch: (field: string, totalCents: number) =>
    `${field} must add up to the amount, ${amount(totalCents)} by the denominations given.`,
  shiftsLive: (storeId: number, date: string, ids: number[]) =>
    `Shifts of store ${storeId} are still open on ${date}: ${ids.join(', ')}. Close or hand them over first.`,
  countsFromShifts: 'counted_cash is not taken while shifts are in use: each shift is counted at its close.',
  unknownCounter: (field: string) =>
    `${field} must name a known staff user who handled the branch's cash that day (a shift, or money moved).`,
  staffUnknown: 'Your sign-in maps to no staff user: you may read, not move money.',
} as const;

export const APPROVAL_MESSAGES = {
  requested: 'Approval requested successfully.',
  approved: 'Approval given successfully.',
  declined: 'Approval declined successfully.',
  used: 'Approval used successfully.',
  released: 'Approval released successfully.',
  notFound: 'Approval not found.',
  required: (rules: string[]) =>
    `Approval required (${rules.join(', ')}): ask an admin, then send the request again with approval_id.`,
  notUsable: (id: number, status: string) => `Approval ${id} is ${status}: it cannot be used.`,
  notCovering: (id: number) => `Approval ${id} does not cover this request: ask for one that lists its checks.`,
  decided: (id: number, status: string) => `Approval ${id} is already ${status}.`,
  noteRequired: 'note is required: say why the approval is declined.',
  unavailable: 'Approvals could not be checked. Please retry.',
} as const;
