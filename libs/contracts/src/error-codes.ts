/**
 * Every failure's machine-readable code: one table, as fastify's lib/errors.js
 * keeps its FST_ERR_* codes. Each failure envelope is
 * `{ success: false, error, code, field? }`: `error` is the spec's text,
 * unchanged; `code` is one of these names, stable across wordings and
 * languages, for a front end to act on; `field` names the request field at
 * fault (`items[0].qty`), on VALIDATION_FAILED and on the few other codes
 * that concern one field. The OpenAPI and AsyncAPI documents carry the
 * table, and each answer's schema lists the codes of its status.
 *
 * A new message needs its code here (or, if it is the text of a success, a
 * place in ANSWER_TEXTS, answer-texts.ts): libs/contracts/test/error-codes.test.ts fails
 * otherwise, and the end-to-end harness fails any failure answered without
 * a code of this table.
 */
import { TOKEN_MESSAGES } from './access';
import { EXPORT_MESSAGES } from './export-messages';
import {
  GATEWAY_MESSAGES,
  GENERIC_ERROR_MESSAGE,
  IF_MATCH_TOO_LONG_MESSAGE,
  PRECONDITION_FAILED_MESSAGE,
  REQUEST_MESSAGES,
} from './http-messages';
import { BILLING_MESSAGES } from './fields/billing';
import { DAY_MESSAGES, LEDGER_MESSAGES } from './fields/billing-money';
import { CATALOGUE_MESSAGES } from './fields/catalogue';
import { FIELD_MESSAGES } from './fields/common';
import { SESSIONS_MESSAGES } from './fields/sessions';
import { CHANNELING_MESSAGES } from './fields/channeling';
import { PAPER_MESSAGES } from './fields/paper';
import { APPROVAL_MESSAGES, SHIFT_MESSAGES } from './fields/cash-office';
import { BAD_IDEMPOTENCY_KEY_MESSAGE, REPLY_TOO_LARGE_MESSAGE, TOO_DEEP_MESSAGE } from './limits';
import { code, type ErrorCodeEntry } from './error-code-entry';
import { ACCESS_CODES } from './error-codes-access';
import { CASH_OFFICE_CODES } from './error-codes-cash-office';

export type { ErrorCodeEntry, ErrorText } from './error-code-entry';
export { ANSWER_TEXTS } from './answer-texts';

export const ERROR_CODES = {
  // The request as a whole, and its fields.
  VALIDATION_FAILED: code(
    [400, 422],
    'A field is missing or holds a value the API does not take (`field` names it; absent when the body as a whole is refused). 422 on the session routes, as the spec has it.',
    ...Object.values(FIELD_MESSAGES),
    BILLING_MESSAGES.noUpdatableFields,
    BILLING_MESSAGES.reasonRequired,
    SESSIONS_MESSAGES.noData,
    SESSIONS_MESSAGES.noValidFields,
    SESSIONS_MESSAGES.timeOrder,
    SESSIONS_MESSAGES.past,
    SESSIONS_MESSAGES.sessionDateNotText,
    LEDGER_MESSAGES.overDue,
    LEDGER_MESSAGES.overHeld,
    LEDGER_MESSAGES.overItem,
    LEDGER_MESSAGES.receivedBelowAmount,
    LEDGER_MESSAGES.notAnItem,
    LEDGER_MESSAGES.reasonRequired,
    DAY_MESSAGES.inFuture,
    DAY_MESSAGES.duplicateUser,
    DAY_MESSAGES.reasonRequired,
    LEDGER_MESSAGES.belowOneCent,
    EXPORT_MESSAGES.badCursor,
    EXPORT_MESSAGES.badAsOf,
    SHIFT_MESSAGES.selfHandover,
    SHIFT_MESSAGES.denominationsMismatch,
    SHIFT_MESSAGES.countsFromShifts,
    SHIFT_MESSAGES.unknownCounter,
    APPROVAL_MESSAGES.noteRequired,
  ),
  INVALID_JSON: code(400, 'The body is not JSON.', GATEWAY_MESSAGES.invalidJson, REQUEST_MESSAGES.invalidJson),
  BODY_FORBIDDEN_KEYS: code(
    400,
    'The body holds __proto__ or constructor.prototype keys.',
    GATEWAY_MESSAGES.poisoned,
    REQUEST_MESSAGES.poisoned,
  ),
  BODY_TOO_DEEP: code(400, 'The body nests objects and arrays too deep.', TOO_DEEP_MESSAGE),
  BODY_TOO_LARGE: code(413, 'The body is over the size limit.', GATEWAY_MESSAGES.tooLarge),
  REPLY_TOO_LARGE: code(
    413,
    'The answer would be too large: narrow the request with its filters.',
    REPLY_TOO_LARGE_MESSAGE,
  ),
  BAD_ENVELOPE: code(400, 'NATS only: the request is not `{params, query, body}`.', REQUEST_MESSAGES.badEnvelope),
  IDEMPOTENCY_KEY_INVALID: code(
    400,
    'The Idempotency-Key header is not 1 to 100 visible ASCII characters.',
    BAD_IDEMPOTENCY_KEY_MESSAGE,
  ),
  IF_MATCH_INVALID: code(400, 'The If-Match header is too long.', IF_MATCH_TOO_LONG_MESSAGE),
  MALFORMED_REQUEST: code(
    400,
    'The HTTP request itself is malformed (its path, its headers, no Host).',
    GATEWAY_MESSAGES.badRequest,
    GATEWAY_MESSAGES.badPath,
    GATEWAY_MESSAGES.hostRequired,
  ),
  REQUEST_TIMEOUT: code(408, 'The request was not received in time.', GATEWAY_MESSAGES.requestTimeout),
  PATH_TOO_LONG: code(414, 'A path segment is over 100 characters.', GATEWAY_MESSAGES.pathTooLong),
  HEADERS_TOO_LARGE: code(431, 'The headers are over 16 KiB (a huge token, say).', GATEWAY_MESSAGES.headersTooLarge),
  ROUTE_NOT_FOUND: code(404, 'No route has this path.', GATEWAY_MESSAGES.notFound),
  METHOD_NOT_ALLOWED: code(
    405,
    'The path has no such method: the Allow header lists its methods.',
    GATEWAY_MESSAGES.methodNotAllowed,
  ),

  ...ACCESS_CODES,

  // Records and their changes.
  PRECONDITION_FAILED: code(
    412,
    'If-Match: the record changed since it was read. Read it again.',
    PRECONDITION_FAILED_MESSAGE,
  ),
  RECORD_BUSY: code(409, 'Other requests kept changing the record: retry.', REQUEST_MESSAGES.recordBusy),
  BILL_NOT_FOUND: code(404, 'No such bill (or cancelled, or of a branch out of reach).', BILLING_MESSAGES.notFound),
  REFUND_NOT_FOUND: code(
    404,
    'The bill has no refund of this id (a payment or a reversal has no slip).',
    PAPER_MESSAGES.refundNotFound,
  ),
  BILL_NOT_CANCELLED: code(404, 'The bill is not cancelled: it has no cancellation slip.', PAPER_MESSAGES.notCancelled),
  STORE_NOT_FOUND: code(404, 'No such branch, or it is inactive.', BILLING_MESSAGES.storeNotFound),
  PATIENT_NOT_FOUND: code(404, 'No such patient.', BILLING_MESSAGES.patientNotFound),
  BILL_CHARGES_INVALID: code(
    400,
    "Some items' charge_id is not an Active charge of the bill's branch (`field`: items).",
    BILLING_MESSAGES.invalidCharges,
  ),
  BILL_NUMBER_CONFLICT: code(409, 'No bill number could be given: retry.', BILLING_MESSAGES.numberConflict),
  BILL_CANCELLED: code(409, 'The bill is cancelled and cannot change.', BILLING_MESSAGES.cancelledBill),
  BILL_ALREADY_CANCELLED: code(409, 'The bill is already cancelled.', BILLING_MESSAGES.alreadyCancelled),
  IDEMPOTENCY_KEY_REUSED: code(
    422,
    'The Idempotency-Key was used for another request.',
    BILLING_MESSAGES.idempotencyMismatch,
  ),
  PRICE_OVERRIDE_FORBIDDEN: code(
    403,
    "The caller's role may not bill these charges at a price other than the catalogue's (`field`: items).",
    LEDGER_MESSAGES.priceOverride,
  ),
  LEDGER_FULL: code(409, 'The bill holds as many payments and refunds as it may.', LEDGER_MESSAGES.ledgerFull),
  DAY_CLOSED: code(409, "The branch's day is closed: nothing of it may change (reopen it first).", DAY_MESSAGES.closed),
  DAY_ALREADY_CLOSED: code(409, "The branch's day is already closed.", DAY_MESSAGES.alreadyClosed),
  DAY_NOT_CLOSED: code(409, "The branch's day is not closed: there is nothing to reopen.", DAY_MESSAGES.notClosed),
  DAY_STILL_RECORDING: code(409, 'Payments of the day are still being recorded: retry.', DAY_MESSAGES.stillRecording),
  DAY_CHANGED_MEANWHILE: code(
    409,
    'The day was closed or reopened by another request meanwhile: retry.',
    DAY_MESSAGES.changedMeanwhile,
  ),
  CATALOGUE_UNAVAILABLE: code(
    503,
    'Billing could not ask the charge catalogue: retry.',
    BILLING_MESSAGES.catalogueUnavailable,
  ),
  CHARGE_NOT_FOUND: code(404, 'No such charge (or deleted, or of a branch out of reach).', CATALOGUE_MESSAGES.notFound),
  CHARGE_NAME_TAKEN: code(409, 'The branch has a live charge of this name.', CATALOGUE_MESSAGES.duplicate),
  CHARGE_UNCHANGED: code(
    200,
    'PUT changed nothing: the charge already holds these values (status 200, success false).',
    CATALOGUE_MESSAGES.noChanges,
  ),
  SESSION_NOT_FOUND: code(404, 'No such session (or of a branch out of reach).', SESSIONS_MESSAGES.notFound),
  DOCTOR_NOT_FOUND: code(404, 'No such active doctor (or of a branch out of reach).', SESSIONS_MESSAGES.doctorNotFound),
  DOCTOR_NO_BRANCH: code(400, 'The doctor is assigned to no branch.', SESSIONS_MESSAGES.doctorNoBranch),
  SESSION_SLOT_TAKEN: code(
    409,
    'The doctor has a session at this branch, date and number.',
    SESSIONS_MESSAGES.duplicate,
  ),
  SESSION_HAS_APPOINTMENTS: code(
    409,
    'The session has active appointments: cancel them or close it.',
    SESSIONS_MESSAGES.deleteRefusal,
  ),
  NO_SCHEDULES: code(404, 'No doctor schedule gives a session in that month.', SESSIONS_MESSAGES.noSchedules),
  APPOINTMENT_NOT_FOUND: code(
    404,
    'No such appointment (or of a branch out of reach).',
    CHANNELING_MESSAGES.appointmentNotFound,
  ),
  SESSION_FULL: code(
    409,
    "The session's places are taken (max_patients, less the numbers it reserves for agents); an agent's booking: none of those is left.",
    CHANNELING_MESSAGES.sessionFull,
    CHANNELING_MESSAGES.agentNumbersTaken,
    CHANNELING_MESSAGES.appointmentsMax,
  ),
  SESSION_CLOSED: code(
    409,
    'The session is cancelled or completed: it takes no booking or move.',
    CHANNELING_MESSAGES.sessionClosed,
  ),
  SESSION_COMPLETED: code(
    409,
    'The session is completed: a status other than `Closed` would reopen it, which it refuses.',
    CHANNELING_MESSAGES.completedNoReopen,
  ),
  SESSION_PAST: code(
    409,
    "The session's date is before the clinic's today: it takes no booking.",
    CHANNELING_MESSAGES.sessionPast,
  ),
  DOCTOR_ON_LEAVE: code(
    409,
    "The session's date is on its doctor's leave (a `doctor_leave` reference record): it takes no booking.",
    CHANNELING_MESSAGES.onLeave,
  ),
  SESSION_ON_HOLIDAY: code(
    409,
    "The session's date is a holiday of its branch, or of every branch (a `holiday` reference record): it takes no booking.",
    CHANNELING_MESSAGES.holiday,
  ),
  FEE_LEVEL_NOT_OFFERED: code(
    400,
    "The branch offers no hospital fee of that level (its reference record's channeling_fees; `field`: fee_level).",
    CHANNELING_MESSAGES.feeLevelNotOffered,
  ),
  APPOINTMENT_MOVE_REFUSED: code(
    409,
    'The appointment cannot move to that status from where it is (or it is cancelled).',
    CHANNELING_MESSAGES.badMove,
    CHANNELING_MESSAGES.cancelled,
  ),
  SESSION_NOT_COMPLETED: code(409, 'Settlement needs the session completed first.', CHANNELING_MESSAGES.notCompleted),
  SESSION_SETTLED: code(
    409,
    'The session is settled: no second settlement, and no refund of its appointments until an admin reverses it.',
    CHANNELING_MESSAGES.alreadySettled,
    CHANNELING_MESSAGES.settledNoRefund,
  ),
  SETTLEMENT_NOT_FOUND: code(
    404,
    'The session has no settlement (or it was reversed).',
    CHANNELING_MESSAGES.notSettled,
  ),
  CHANNELING_UNAVAILABLE: code(
    503,
    'Sessions or billing could not be asked about the appointment: retry.',
    CHANNELING_MESSAGES.sessionsUnavailable,
    CHANNELING_MESSAGES.billingUnavailable,
  ),

  ...CASH_OFFICE_CODES,

  // The system.
  SERVICE_UNAVAILABLE: code(
    503,
    'A service (or its database) does not answer: retry.',
    GATEWAY_MESSAGES.unavailable,
    GATEWAY_MESSAGES.unhealthy,
    REQUEST_MESSAGES.databaseUnavailable,
  ),
  SERVICE_BUSY: code(503, 'The service could not record the change in time: retry.', REQUEST_MESSAGES.writeTooLate),
  SERVICE_TIMEOUT: code(504, 'A service did not answer in time: retry.', GATEWAY_MESSAGES.timeout),
  INTERNAL_ERROR: code(500, 'Unexpected: the log line with the correlation id tells the cause.', GENERIC_ERROR_MESSAGE),
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as ErrorCode[];

/** The codes a status is answered with. */
export function codesOfStatus(status: number): ErrorCode[] {
  return ERROR_CODE_NAMES.filter((name) => (ERROR_CODES[name].status as readonly number[]).includes(status));
}

/** The text of a code that has one fixed text; undefined for the others (their texts are made at the throw). */
export function fixedMessageOf(name: ErrorCode): string | undefined {
  const [only, ...others] = ERROR_CODES[name].messages;
  return others.length === 0 && typeof only === 'string' ? only : undefined;
}

/** Why a token was refused (TOKEN_MESSAGES), as a code: sign in, get a new token, or neither will help. */
export function tokenRefusalCode(message: string): ErrorCode {
  if (message === TOKEN_MESSAGES.missing) return 'AUTHENTICATION_REQUIRED';
  return message === TOKEN_MESSAGES.expired ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID';
}

/** The table as Markdown, for the OpenAPI and AsyncAPI documents' descriptions. */
export function errorCodeTable(): string {
  const rows = ERROR_CODE_NAMES.map((name) => {
    const entry = ERROR_CODES[name];
    return `| \`${name}\` | ${entry.status.join(', ')} | ${entry.description.replaceAll('|', '\\|')} |`;
  });
  return ['| code | status | meaning |', '|---|---|---|', ...rows].join('\n');
}
