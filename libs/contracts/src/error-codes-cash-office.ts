/** The codes of the cash office: shifts, drawers, approvals (a part of ERROR_CODES). */
import { code, type ErrorCodeEntry } from './error-code-entry';
import { APPROVAL_MESSAGES, SHIFT_MESSAGES } from './fields/cash-office';

export const CASH_OFFICE_CODES = {
  SHIFTS_OFF: code(409, 'Shifts are not in use at this clinic (CASH_SHIFTS=off).', SHIFT_MESSAGES.shiftsOff),
  SHIFT_NOT_FOUND: code(404, 'No such shift (or of a branch out of reach).', SHIFT_MESSAGES.notFound),
  SHIFT_ALREADY_OPEN: code(409, 'The caller has a shift open at that branch already.', SHIFT_MESSAGES.alreadyOpen),
  SHIFT_REQUIRED: code(
    409,
    "With CASH_SHIFTS=on money moves in a shift's drawer: open one, or name the open shift that pays (`shift_id`).",
    SHIFT_MESSAGES.required,
  ),
  SHIFT_NOT_OPEN: code(
    409,
    'The shift is closed, being closed or handed over: it takes no money (`field`: shift_id when named).',
    SHIFT_MESSAGES.notOpen,
    SHIFT_MESSAGES.otherBranch,
  ),
  SHIFT_NOT_YOURS: code(
    403,
    "The shift is another cashier's: only they or an admin may use it.",
    SHIFT_MESSAGES.notYours,
  ),
  DRAWER_SHORT: code(409, "The shift's drawer holds less cash than this takes out.", SHIFT_MESSAGES.drawerShort),
  SHIFT_STILL_RECORDING: code(
    409,
    'Money of the shift is still being recorded: retry the close (the shift takes money again meanwhile).',
    SHIFT_MESSAGES.stillRecording,
  ),
  SHIFT_SIGN_OFF_REFUSED: code(
    409,
    'Only a closed shift is signed off, once.',
    SHIFT_MESSAGES.notClosed,
    SHIFT_MESSAGES.signedOffAlready,
  ),
  HANDOVER_REFUSED: code(
    409,
    'The shift waits for no handover, for another cashier, or the amount accepted is not the amount counted.',
    SHIFT_MESSAGES.notHandingOver,
    SHIFT_MESSAGES.notTheReceiver,
    SHIFT_MESSAGES.handoverMismatch,
  ),
  SHIFTS_LIVE: code(
    409,
    'Shifts of the branch and day are still open: close or hand them over first.',
    SHIFT_MESSAGES.shiftsLive,
  ),
  STAFF_UNKNOWN: code(
    403,
    "The token's subject maps to no staff user (a user record's id, or its `subject`): it may read, not move money.",
    SHIFT_MESSAGES.staffUnknown,
  ),
  APPROVAL_REQUIRED: code(
    403,
    "A control of the clinic refused it: the answer's `approval` lists what needs an admin's approval (POST /approvals); send the request again with `approval_id`.",
    APPROVAL_MESSAGES.required,
  ),
  APPROVAL_NOT_FOUND: code(404, 'No such approval (or of a branch out of reach).', APPROVAL_MESSAGES.notFound),
  APPROVAL_NOT_USABLE: code(
    409,
    'The approval is not approved, used already, or does not cover this request.',
    APPROVAL_MESSAGES.notUsable,
    APPROVAL_MESSAGES.notCovering,
  ),
  APPROVAL_DECIDED: code(409, 'The approval was approved or declined already.', APPROVAL_MESSAGES.decided),
  APPROVALS_UNAVAILABLE: code(
    503,
    'The catalogue could not ask billing about the approval: retry (nothing changed).',
    APPROVAL_MESSAGES.unavailable,
  ),
} as const satisfies Record<string, ErrorCodeEntry>;
