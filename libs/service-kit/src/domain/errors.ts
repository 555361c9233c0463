/**
 * A failure the caller caused or may act on. It travels back in the spec's
 * envelope `{success: false, error, code, field?}` with its status; anything
 * else is a 500. Its code is one of libs/contracts' table (error-codes.ts).
 */
import { APPROVAL_MESSAGES, ERROR_CODES, fixedMessageOf, type ApprovalNeeded, type ErrorCode } from '@clinic/contracts';

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: ErrorCode,
    /** The request field at fault, as `items[0].qty`. */
    readonly field?: string,
    /** APPROVAL_REQUIRED: what needs approval, sent with the failure. */
    readonly approval?: ApprovalNeeded,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/** A request field that breaks a rule: 400 VALIDATION_FAILED, `field` naming it. */
export const badRequest = (message: string, field?: string) =>
  new ServiceError(400, message, 'VALIDATION_FAILED', field);
/** The same, where the spec answers 422 (the session routes). */
export const unprocessable = (message: string, field?: string) =>
  new ServiceError(422, message, 'VALIDATION_FAILED', field);

/** The code of a record that is not there (BILL_NOT_FOUND...): pathId, foundInBranch and RecordWriter answer it. */
export type NotFoundCode = ErrorCode & `${string}_NOT_FOUND`;

/** How a rule refuses a field: badRequest or unprocessable. */
export type Invalid = (message: string, field?: string) => ServiceError;

/**
 * Any other failure, by its code: the code's status, and its text (the code's
 * one fixed text when `message` is not given).
 */
export function fail(code: Exclude<ErrorCode, 'VALIDATION_FAILED'>, message?: string, field?: string): ServiceError {
  const text = message ?? fixedMessageOf(code);
  if (text === undefined) throw new Error(`${code} has no fixed text: give its message`);
  return new ServiceError(ERROR_CODES[code].status[0]!, text, code, field);
}

/** 403 APPROVAL_REQUIRED: what a clinic's controls refused, with what to ask an admin to approve. */
export function approvalRequired(needed: ApprovalNeeded): ServiceError {
  const rules = [...new Set(needed.checks.map((check) => check.rule))];
  return new ServiceError(403, APPROVAL_MESSAGES.required(rules), 'APPROVAL_REQUIRED', undefined, needed);
}
