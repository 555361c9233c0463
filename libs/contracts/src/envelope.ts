import type { ErrorCode } from './error-codes';

/**
 * The request/reply envelope carried over NATS. The gateway translates HTTP into
 * a ServiceRequest and a ServiceReply back into HTTP; other hospital services
 * speak it directly.
 */

/** `sub` is kept exactly as the token gives it: an integer or a string. */
export interface Caller {
  sub: number | string;
  role: string;
  /** The branches the token is limited to (its `store_ids` claim); absent: every branch, as before the claim. */
  store_ids?: readonly number[];
}

export interface ServiceRequest<TBody = unknown> {
  params?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: TBody;
}

export interface SuccessBody {
  success: true;
  [field: string]: unknown;
}

export interface FailureBody {
  success: false;
  /** The spec's text. */
  error: string;
  /** What the failure is, for a program (error-codes.ts). */
  code: ErrorCode;
  /** The request field at fault, as `items[0].qty`: on validation failures (and a few others, error-codes.ts). */
  field?: string;
  /** APPROVAL_REQUIRED: what needs an admin's approval, as POST /approvals takes it. */
  approval?: ApprovalNeeded;
}

/** One thing a clinic's control refused, and what it found. */
export interface ApprovalCheck {
  rule: string;
  details: Record<string, unknown>;
}

export interface ApprovalNeeded {
  store_id: number;
  checks: ApprovalCheck[];
}

export type ResponseBody = SuccessBody | FailureBody;

export interface ServiceReply<TBody extends ResponseBody = ResponseBody> {
  status: number;
  /**
   * On a single record's read (a bill, a charge, a session): the entity tag of `body`, the record's current
   * representation (a strong ETag, `"..."`). Sent before `body`, so the gateway reads it without parsing the body.
   */
  etag?: string;
  body: TBody;
}

export const HeaderNames = {
  correlationId: 'x-correlation-id',
  /**
   * `Bearer <JWT>`: the caller's own token, which the service verifies itself
   * (the gateway forwards the one it received; another hospital system sends its own).
   */
  authorization: 'authorization',
  /** Epoch milliseconds after which the requester no longer waits for the reply. */
  deadline: 'x-deadline',
  /** Client-chosen key that makes a create safe to retry. */
  idempotencyKey: 'idempotency-key',
  /**
   * On an update or a delete of a bill, a charge or a session: the ETag(s) the caller read (HTTP If-Match);
   * the change is refused with 412 when the record's representation is no longer one of them.
   */
  ifMatch: 'if-match',
  /**
   * On a reply larger than one NATS message: how many messages it comes in, and
   * which one this is (0-based). The caller joins them in order.
   */
  chunkCount: 'x-chunk-count',
  chunkIndex: 'x-chunk',
  /** On a 200 of a hot read: `scope=version,...`; the gateway may keep the reply while those versions are current. */
  cacheScopes: 'x-cache-scopes',
} as const;

export function success(status: number, fields: Record<string, unknown> = {}): ServiceReply<SuccessBody> {
  return { status, body: { success: true, ...fields } };
}

export function failure(
  status: number,
  error: string,
  code: ErrorCode,
  field?: string,
  approval?: ApprovalNeeded,
): ServiceReply<FailureBody> {
  const body: FailureBody =
    field === undefined ? { success: false, error, code } : { success: false, error, code, field };
  return { status, body: approval === undefined ? body : { ...body, approval } };
}
